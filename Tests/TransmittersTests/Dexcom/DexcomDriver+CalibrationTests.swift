import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

// Fingersticks offered to the Dexcom (DexcomDriver+Calibration.swift), on the driver harness
// and virtual clock of DexcomDriverTests.
extension DexcomDriverTests {
    static func calibrating() throws -> Harness {
        var h = Harness(hours: 0)
        h.driver = DexcomDriver(device: "cgm", configuration: .init(transmitterID: id, backfillHours: 0, calibrateFromMeter: true),
                                makeToken: { DexcomDriverTests.token })
        #expect(try DexcomDriver(TransmitterConfiguration(parsing: "dexcom transmitter-id=8112AB calibrate-from-meter=true")).configuration.calibrateFromMeter)
        return h
    }

    static func reports(_ actions: [DriverAction]) -> [CalibrationReport] {
        events(actions).compactMap { if case .calibration(let report) = $0 { report } else { nil } }
    }

    static let stick = GlucoseConcentration(milligramsPerDeciliter: 112)

    /// A bonded session up to the glucose reply; its actions from that reply on (the
    /// calibration step comes next when a fingerstick waits).
    static func sessionToGlucose(_ h: inout Harness, currentTime: UInt32, mgdl: UInt16, at time: UInt32) -> [DriverAction] {
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.indicate(Dexcom.TransmitterTimeRx(currentTime: currentTime, sessionStartTime: 4_000).bytes)
        return h.indicate(glucose(mgdl, at: time).bytes)
    }

    @Test func withCalibrationOffAFingerstickIsReportedNotUsed() {
        var h = Harness(hours: 0)
        let actions = h.send(.calibration(Self.stick, takenAt: h.now))
        #expect(Self.reports(actions).map(\.outcome) == [.notUsed(reason: "calibrate-from-meter is off for this Dexcom (it calibrates itself)")])
    }

    /// The stick waits for the next session; after the glucose it goes out dated on the
    /// transmitter's clock, and the 0x35 result is reported.
    @Test func aFingerstickIsSentAfterTheGlucoseAndItsResultReported() throws {
        var h = try Self.calibrating()
        let takenAt = h.now
        #expect(h.send(.calibration(Self.stick, takenAt: takenAt)).isEmpty)
        h.advance(.seconds(120))
        let afterGlucose = Self.sessionToGlucose(&h, currentTime: 10_000, mgdl: 120, at: 9_990)
        // Taken 120 s before the time reply said 10000: dex time 9880.
        #expect(afterGlucose.last == .write(Self.control, Dexcom.CalibrateGlucoseTx(glucoseMilligramsPerDeciliter: 112, time: 9_880).bytes, withResponse: true))
        let answered = h.indicate(Dexcom.CalibrateGlucoseRx(result: .init(rawValue: 0x00)).bytes)
        #expect(Self.reports(answered) == [CalibrationReport(reference: Self.stick, takenAt: takenAt, outcome: .accepted(detail: "accepted"))])
        #expect(answered.last == .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true))
        #expect(h.driver.pendingCalibration == nil)
    }

    @Test func aRefusedCalibrationIsReportedWithTheTransmittersWords() throws {
        var h = try Self.calibrating()
        _ = h.send(.calibration(Self.stick, takenAt: h.now))
        _ = Self.sessionToGlucose(&h, currentTime: 10_000, mgdl: 120, at: 9_990)
        let answered = h.indicate(Dexcom.CalibrateGlucoseRx(result: .init(rawValue: 0x08)).bytes)
        #expect(Self.reports(answered).map(\.outcome) == [.notUsed(reason: "the transmitter answered rejected")])
    }

    /// No answer: said, kept for the next session, and the session goes on to the rest.
    @Test func anUnansweredCalibrationIsSentAgainNextSession() throws {
        var h = try Self.calibrating()
        _ = h.send(.calibration(Self.stick, takenAt: h.now))
        _ = Self.sessionToGlucose(&h, currentTime: 10_000, mgdl: 120, at: 9_990)
        let silence = h.expire()
        #expect(silence == [.emit(.operationFailed(.write(Self.control), .other("no answer to CalibrateGlucoseTx (0x34) within 10 s; sent again next session"))),
                            .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true)])
        #expect(h.driver.pendingCalibration != nil)
        _ = h.answerTheRest(firstSession: true)
        _ = h.send(.disconnected(reason: "remote"))
        h.advance(.seconds(300))
        let again = Self.sessionToGlucose(&h, currentTime: 10_310, mgdl: 121, at: 10_290)
        guard case let .write(_, bytes, _)? = again.last else {
            Issue.record("no calibration in \(again)")
            return
        }
        #expect(bytes.first == Dexcom.CalibrateGlucoseTx.opcode)
    }

    @Test(arguments: [39.0, 401.0])
    func aFingerstickOutsideWhatADexcomAcceptsIsNotUsed(_ mgdl: Double) throws {
        var h = try Self.calibrating()
        let actions = h.send(.calibration(GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: h.now))
        #expect(Self.reports(actions).map(\.outcome) == [.notUsed(reason: "outside the 40–400 mg/dL a Dexcom accepts")])
        #expect(h.driver.pendingCalibration == nil)
    }

    @Test func aStaleFingerstickIsNotSentAndANewerOneReplacesAWaitingOne() throws {
        var h = try Self.calibrating()
        let first = h.now
        _ = h.send(.calibration(Self.stick, takenAt: first))
        let replaced = h.send(.calibration(GlucoseConcentration(milligramsPerDeciliter: 118), takenAt: first + .seconds(60)))
        #expect(Self.reports(replaced) == [CalibrationReport(reference: Self.stick, takenAt: first,
                                                              outcome: .notUsed(reason: "a newer fingerstick replaced it before it was sent"))])
        h.advance(.seconds(20 * 60))
        let actions = Self.sessionToGlucose(&h, currentTime: 10_000, mgdl: 120, at: 9_990)
        #expect(Self.reports(actions).map(\.outcome) == [.notUsed(reason: "taken 19 min before the transmitter could be reached; a calibration must be recent")])
        #expect(actions.last == .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true))
    }
}
