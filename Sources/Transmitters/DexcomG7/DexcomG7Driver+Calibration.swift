import Clocks
import Readings
import Wire

// Fingersticks sent as calibrations (docs/dexcom-g7.md "Calibration"): the G7 accepts them, as
// the G6 did, and the rules are the G6's (`DexcomDriver.calibrationRange`,
// `calibrationMaximumAge`). Every fingerstick offered ends in a `CalibrationReport`.
extension DexcomG7Driver {
    mutating func offerCalibration(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        func report(_ reference: GlucoseConcentration, _ takenAt: MonotonicInstant, _ reason: String) -> DriverAction {
            .emit(.calibration(CalibrationReport(reference: reference, takenAt: takenAt, outcome: .notUsed(reason: reason))))
        }
        guard configuration.calibrateFromMeter else {
            return [report(reference, takenAt, "calibrate-from-meter is off for this Dexcom G7 (it is factory calibrated)")]
        }
        let range = DexcomDriver.calibrationRange
        guard range.contains(reference.milligramsPerDeciliter) else {
            return [report(reference, takenAt, "outside the \(Int(range.lowerBound))–\(Int(range.upperBound)) mg/dL a Dexcom accepts")]
        }
        let replaced = pendingCalibration.map { [report($0.reference, $0.takenAt, "a newer fingerstick replaced it before it was sent")] } ?? []
        pendingCalibration = (reference, takenAt)
        return replaced
    }

    /// Sends the waiting fingerstick dated on the sensor's clock; nil when there is none (or no
    /// clock yet). One too old is reported, and the session goes on.
    mutating func startCalibrationIfPending(at now: MonotonicInstant) -> [DriverAction]? {
        guard let pending = pendingCalibration, let clock else { return nil }
        func dropped(_ reason: String) -> [DriverAction] {
            pendingCalibration = nil
            return [.emit(.calibration(CalibrationReport(reference: pending.reference, takenAt: pending.takenAt, outcome: .notUsed(reason: reason))))]
                + nextStep(at: now)
        }
        guard now - pending.takenAt <= DexcomDriver.calibrationMaximumAge else {
            return dropped("taken \(Int((now - pending.takenAt).seconds / 60)) min before the sensor could be reached; a calibration must be recent")
        }
        guard let time = clock.dexTime(at: pending.takenAt) else { return dropped("taken before the sensor was activated") }
        wait(in: .awaitingCalibrationResult, at: now)
        let mgdl = UInt16(pending.reference.milligramsPerDeciliter.rounded())
        return [.write(DexcomG7Profile.control, DexcomG7.CalibrateTx(milligramsPerDeciliter: mgdl, measuredAt: time).bytes, withResponse: true)]
    }

    /// The sensor's 0x34 answer: the fingerstick is done with, accepted or refused.
    mutating func calibrationAnswered(_ bytes: [UInt8]) -> [DriverAction] {
        guard let pending = pendingCalibration else { return [] }
        do throws(WireError) {
            let answer = try DexcomG7.CalibrateRx(decoding: bytes)
            pendingCalibration = nil
            let outcome: CalibrationReport.Outcome = answer.isAccepted
                ? .accepted(detail: "accepted by the sensor") : .notUsed(reason: "the sensor refused it (status \(answer.status))")
            return [.emit(.calibration(CalibrationReport(reference: pending.reference, takenAt: pending.takenAt, outcome: outcome)))]
        } catch {
            return [.emit(.malformedValue(DexcomG7Profile.control, reason: "\(error) in \(bytes.hexString); the calibration is sent again next session"))]
        }
    }
}
