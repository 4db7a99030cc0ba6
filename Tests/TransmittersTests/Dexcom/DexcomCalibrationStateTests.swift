import Testing
@testable import Transmitters

// docs/protocols/dexcom-g5-g6.md §Calibration state and trend: usable glucose per xDrip
// `usableGlucose` and xdrip-js is 0x06 and 0x07.
struct DexcomCalibrationStateTests {
    @Test func usableStates() {
        let usable = (0...255).filter { Dexcom.CalibrationState(rawValue: UInt8($0)).hasUsableGlucose }
        #expect(usable == [6, 7])
        #expect(Dexcom.CalibrationState.warmup.description == "warmup")
        #expect(Dexcom.CalibrationState(rawValue: 0x0E).description == "needs calibration (outlier, 0x0E)")
        #expect(Dexcom.CalibrationState(rawValue: 0x99).description == "state 0x99")
    }

    /// The G7 family's own states (docs/protocols/dexcom-g7.md §Glucose), in the words
    /// `SensorLifecycle` maps: expired and failed end the session, a temporary issue does not.
    @Test func g7States() {
        #expect(Dexcom.CalibrationState(rawValue: 24).description == "expired")
        #expect(Dexcom.CalibrationState(rawValue: 25).description == "sensor failed (0x19)")
        #expect(Dexcom.CalibrationState(rawValue: 19).description == "sensor failed (0x13)")
        #expect(Dexcom.CalibrationState(rawValue: 18).description == "temporary sensor issue")
        #expect(!Dexcom.CalibrationState(rawValue: 24).hasUsableGlucose)
    }
}
