import Alarms
import App
import Testing
import Transmitters

/// The drivers' sensor-state vocabulary, taken from the drivers' own types where they have
/// one (so a renamed state breaks this test, not the alarm), mapped to lifecycles.
@Suite struct SensorLifecycleTests {
    /// Every Dexcom calibration state byte 0x00-0x19 and beyond (docs/protocols/dexcom-g5-g6.md
    /// §Calibration state and trend, docs/protocols/dexcom-g7.md §Glucose), by the words `Dexcom.CalibrationState.description` gives it.
    @Test(arguments: [
        (UInt8(0x00), nil), (0x01, .ended(reason: "stopped")), (0x02, .warmingUp), (0x03, nil),
        (0x04, .awaitingCalibration), (0x05, .awaitingCalibration), (0x06, .running), (0x07, .running),
        (0x08, nil), (0x09, nil), (0x0A, nil), (0x0B, .ended(reason: "sensor failed (0x0B)")),
        (0x0C, .ended(reason: "sensor failed (0x0C)")), (0x0D, nil), (0x0E, .running),
        (0x0F, .ended(reason: "session ended")), (0x10, .ended(reason: "sensor failed (0x10)")),
        (0x11, .ended(reason: "transmitter problem")), (0x12, nil), (0x13, .ended(reason: "sensor failed (0x13)")),
        // The G7 family's own (docs/protocols/dexcom-g7.md §Glucose): expired ends the session.
        (0x17, nil), (0x18, .ended(reason: "expired")), (0x19, .ended(reason: "sensor failed (0x19)")), (0xFF, nil),
    ] as [(UInt8, SensorLifecycle?)])
    func dexcomStates(_ raw: UInt8, _ expected: SensorLifecycle?) {
        #expect(SensorLifecycle(sensorState: Dexcom.CalibrationState(rawValue: raw).description) == expected)
    }

    @Test(arguments: [
        (LibreSensorState.notYetStarted, SensorLifecycle.ended(reason: "not yet started")),
        (.starting, .warmingUp), (.ready, .running), (.expired, .ended(reason: "expired")),
        (.shutdown, .ended(reason: "shut down")), (.failure, .ended(reason: "failed")),
    ])
    func libreStates(_ state: LibreSensorState, _ expected: SensorLifecycle) {
        #expect(SensorLifecycle(sensorState: state.description) == expected)
    }

    @Test func cgmServiceStatusBits() {
        func lifecycle(_ bits: CGMStatusBits) -> SensorLifecycle? { SensorLifecycle(sensorState: bits.description) }
        #expect(lifecycle([]) == .running)                                   // "ok"
        #expect(lifecycle([.calibrationRecommended, .deviceBatteryLow]) == .running)
        #expect(lifecycle([.sessionStopped]) == .ended(reason: "session stopped"))
        #expect(lifecycle([.deviceBatteryLow, .sensorMalfunction]) == .ended(reason: "device battery low, sensor malfunction"))
        #expect(lifecycle([.generalDeviceFault]) == .ended(reason: "general device fault"))
        #expect(lifecycle([.sensorTypeIncorrect]) == .ended(reason: "sensor type incorrect"))
        #expect(lifecycle(CGMStatusBits(rawValue: 1 << 6)) == .running)     // a reserved bit alone
        // The driver's own words after a Start/Stop Session command.
        #expect(SensorLifecycle(sensorState: "session started") == .running)
        #expect(SensorLifecycle(sensorState: "session stopped") == .ended(reason: "session stopped"))
    }

    /// Notes that are not lifecycle: xBridge calibration, glucose-meter transfers, Dexcom
    /// authentication; and near misses of real words.
    @Test(arguments: [
        "calibrated with 104 mg/dL at raw 123456", "3 new record(s), last sequence 7", "meter battery low",
        "another app's session was not authenticated", "", "OK", "warm up", "session stopped, fire", "ok,",
        "sensor failed", "records up to date, last 3",
    ])
    func otherNotesAreNotLifecycle(_ text: String) {
        #expect(SensorLifecycle(sensorState: text) == nil)
    }

    @Test func phases() {
        #expect(SensorLifecycle.warmingUp.phase == .warmingUp)
        #expect(SensorLifecycle.running.phase == .running)
        #expect(SensorLifecycle.awaitingCalibration.phase == .running)
        #expect(SensorLifecycle.ended(reason: "expired").phase == .ended)
    }
}
