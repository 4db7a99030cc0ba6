import Clocks
import Readings
import Wire

// Fingersticks sent as calibrations (docs/dexcom.md "Calibration"): a meter's stick waits for
// the next session's calibration step, goes out as CalibrateGlucoseTx (0x34) dated on the
// transmitter's clock, and its 0x35 result is reported. Every fingerstick offered ends in a
// `CalibrationReport`, used or not.
extension DexcomDriver {
    /// The range a Dexcom accepts for a calibration, in mg/dL (xDrip `Calibration.getConvertedBg`
    /// refuses values outside it; LoopKit's G7SensorKit `GlucoseLimits` is the same 40–400).
    static let calibrationRange: ClosedRange<Double> = 40...400
    /// A fingerstick older than this when its session comes is not sent: blood glucose has moved
    /// on, and the transmitter would pair it with a sensor value of another moment.
    static let calibrationMaximumAge: Duration = .seconds(15 * 60)

    /// A fingerstick from a meter: kept for the next calibration step, or reported unused.
    mutating func offerCalibration(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        func notUsed(_ reason: String) -> [DriverAction] {
            [.emit(.calibration(CalibrationReport(reference: reference, takenAt: takenAt, outcome: .notUsed(reason: reason))))]
        }
        guard configuration.calibrateFromMeter else {
            return notUsed("calibrate-from-meter is off for this Dexcom (it calibrates itself)")
        }
        guard Self.calibrationRange.contains(reference.milligramsPerDeciliter) else {
            return notUsed("outside the \(Int(Self.calibrationRange.lowerBound))–\(Int(Self.calibrationRange.upperBound)) mg/dL a Dexcom accepts")
        }
        var actions: [DriverAction] = []
        if let replaced = pendingCalibration {
            actions.append(.emit(.calibration(CalibrationReport(reference: replaced.reference, takenAt: replaced.takenAt,
                                                                outcome: .notUsed(reason: "a newer fingerstick replaced it before it was sent")))))
        }
        pendingCalibration = (reference, takenAt)
        return actions
    }

    /// Sends the waiting fingerstick, if there is one and the session has the transmitter's
    /// clock; nil when there is nothing to send. One too old is reported and the session goes
    /// on to its next step.
    mutating func startCalibrationIfPending(at now: MonotonicInstant) -> [DriverAction]? {
        guard let pending = pendingCalibration, let clock else { return nil }
        let report = { (outcome: CalibrationReport.Outcome) in
            DriverAction.emit(.calibration(CalibrationReport(reference: pending.reference, takenAt: pending.takenAt, outcome: outcome)))
        }
        guard now - pending.takenAt <= Self.calibrationMaximumAge else {
            pendingCalibration = nil
            return [report(.notUsed(reason: "taken \(Int((now - pending.takenAt).seconds / 60)) min before the transmitter could be reached; a calibration must be recent"))]
                + nextStep(at: now)
        }
        guard let time = clock.dexTime(at: pending.takenAt) else {
            pendingCalibration = nil
            return [report(.notUsed(reason: "taken before the transmitter was activated"))] + nextStep(at: now)
        }
        let mgdl = UInt16(pending.reference.milligramsPerDeciliter.rounded())
        wait(in: .awaitingCalibrationResult, for: configuration.stepTimeout, at: now)
        return [.write(DexcomProfile.control, Dexcom.CalibrateGlucoseTx(glucoseMilligramsPerDeciliter: mgdl, time: time).bytes, withResponse: true)]
    }

    /// The transmitter's 0x35: the fingerstick is done with, accepted or not.
    mutating func calibrationAnswered(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        guard let pending = pendingCalibration else { return [] }
        do throws(WireError) {
            let answer = try Dexcom.CalibrateGlucoseRx(decoding: bytes)
            pendingCalibration = nil
            let outcome: CalibrationReport.Outcome = answer.result.isAccepted
                ? .accepted(detail: "\(answer.result)") : .notUsed(reason: "the transmitter answered \(answer.result)")
            return [.emit(.calibration(CalibrationReport(reference: pending.reference, takenAt: pending.takenAt, outcome: outcome)))]
        } catch {
            // Kept for the next session: a retry of an accepted one is answered "duplicate".
            return [.emit(.malformedValue(DexcomProfile.control, reason: "\(error) in \(bytes.hexString); the calibration is sent again next session"))]
        }
    }

    /// No answer (or a refused write): the fingerstick stays for the next session, while it is
    /// recent enough, and the session goes on.
    mutating func calibrationUnanswered(after timeout: Duration?, at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = []
        if let timeout {
            actions.append(.emit(.operationFailed(.write(DexcomProfile.control),
                                                  .other("no answer to CalibrateGlucoseTx (0x34) within \(Int(timeout.seconds)) s; sent again next session"))))
        }
        return actions + nextStep(at: now)
    }
}
