import Clocks
import Readings
import Testing
@testable import Transmitters

@Suite struct LibreCalibrationTests {
    static let t0 = MonotonicInstant(nanoseconds: 0)

    static func point(_ sensor: Double, _ reference: Double, minute: Int = 0) -> LibreCalibration.Point {
        .init(sensor: GlucoseConcentration(milligramsPerDeciliter: sensor),
              reference: GlucoseConcentration(milligramsPerDeciliter: reference), takenAt: t0 + .seconds(60 * minute))
    }

    /// raw / 8.5: the newest trend value of the xDrip dump, 1323, is 155.647… mg/dL.
    @Test func uncalibratedIsRawOver8point5() {
        #expect(LibreCalibration.uncalibrated(raw: 1323).milligramsPerDeciliter == 1323 / 8.5)
        #expect(LibreCalibration.uncalibrated.glucose(raw: 1323).roundedMilligramsPerDeciliter == 156)
        #expect(LibreCalibration.uncalibrated(raw: 850).milligramsPerDeciliter == 100)
        #expect(LibreCalibration.fit([]) == .uncalibrated)
    }

    @Test func onePointIsAnOffset() {
        let calibration = LibreCalibration.fit([Self.point(100, 110)])
        #expect(calibration.method == .offset)
        #expect(calibration.slope == 1)
        #expect(calibration.intercept == 10)
        #expect(calibration.fallbackReason == nil)
        #expect(calibration.glucose(raw: 850).milligramsPerDeciliter == 110)
    }

    /// Points on y = 1.2x − 10 exactly: least squares recovers the line.
    @Test func leastSquaresRecoversALine() {
        let calibration = LibreCalibration.fit([Self.point(80, 86), Self.point(150, 170), Self.point(220, 254)])
        #expect(calibration.method == .leastSquares)
        #expect(abs(calibration.slope - 1.2) < 1e-9)
        #expect(abs(calibration.intercept + 10) < 1e-9)
        #expect(abs(calibration.apply(GlucoseConcentration(milligramsPerDeciliter: 100)).milligramsPerDeciliter - 110) < 1e-9)
    }

    /// Noisy points: (100,105), (200,195): slope 0.9, intercept 15.
    @Test func leastSquaresOfTwoPoints() {
        let calibration = LibreCalibration.fit([Self.point(100, 105), Self.point(200, 195)])
        #expect(calibration.method == .leastSquares)
        #expect(abs(calibration.slope - 0.9) < 1e-9)
        #expect(abs(calibration.intercept - 15) < 1e-9)
    }

    @Test func pointsTooCloseFallBackToTheMeanOffset() {
        let calibration = LibreCalibration.fit([Self.point(100, 112), Self.point(110, 118)])
        #expect(calibration.method == .offset)
        #expect(calibration.intercept == 10)
        #expect(calibration.fallbackReason == "sensor values only 10.0 mg/dL apart, too close for a slope")
    }

    /// (100, 100) and (200, 320): slope 2.2 is out of bounds, and so is the mean offset (+60):
    /// uncalibrated, with both reasons.
    @Test func outOfBoundsFallsBackToUncalibrated() {
        let calibration = LibreCalibration.fit([Self.point(100, 100), Self.point(200, 320)])
        #expect(calibration.method == .uncalibrated)
        #expect(calibration.slope == 1)
        #expect(calibration.intercept == 0)
        #expect(calibration.fallbackReason == "least-squares slope 2.2 / intercept -120.0 mg/dL out of bounds; offset 60.0 mg/dL out of bounds")
    }

    /// The bounds are inclusive: an offset of exactly +50 is accepted.
    @Test func offsetAtTheBoundIsAccepted() {
        let calibration = LibreCalibration.fit([Self.point(100, 150)])
        #expect(calibration.method == .offset)
        #expect(calibration.intercept == 50)
    }

    /// Slope 1.5 (out of bounds), but the mean offset +25 is fine.
    @Test func outOfBoundsSlopeFallsBackToOffset() {
        let calibration = LibreCalibration.fit([Self.point(100, 100), Self.point(200, 250)])
        #expect(calibration.method == .offset)
        #expect(calibration.intercept == 25)
        #expect(calibration.fallbackReason?.hasPrefix("least-squares slope 1.5") == true)
    }

    @Test(arguments: [(100.0, 160.0), (100.0, 40.0)])
    func oneWildStickIsRefused(sensor: Double, reference: Double) {
        let calibration = LibreCalibration.fit([Self.point(sensor, reference)])
        #expect(calibration.method == .uncalibrated)
        #expect(calibration.intercept == 0)
        #expect(calibration.fallbackReason?.contains("out of bounds") == true)
    }

    @Test func descriptions() {
        #expect(LibreCalibration.uncalibrated.description == "uncalibrated (raw / 8.5)")
        #expect(LibreCalibration.fit([Self.point(100, 110)]).description == "offset 10.0 mg/dL")
    }
}
