import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// Fingersticks sent to the sensor (DexcomG7Driver+Calibration.swift).
struct DexcomG7DriverCalibrationTests {
    typealias T = DexcomG7DriverTests
    typealias Harness = DexcomG7DriverTests.Harness

    @Test func aCalibrationIsSentOnTheSensorsClockAndItsAnswerReported() throws {
        var h = Harness { $0.calibrateFromMeter = true; $0.backfillHours = 0 }
        _ = try h.pair()
        _ = h.control(T.serialReply)
        let takenAt = h.now - .seconds(60)
        #expect(h.send(.calibration(GlucoseConcentration(milligramsPerDeciliter: 120), takenAt: takenAt)).isEmpty)
        let actions = h.control(T.glucose(at: 3_600, mgdl: 118, age: 0))
        #expect(actions.last == .write(T.control, DexcomG7.CalibrateTx(milligramsPerDeciliter: 120, measuredAt: 3_540).bytes, withResponse: true))
        let answer = h.control([UInt8](hex: "34000100"))
        #expect(answer.contains { if case let .emit(.calibration(report)) = $0 { report.isAccepted } else { false } })
    }
}
