import Clocks
import Readings
import Testing
@testable import Transmitters

@Suite struct XBridgeCalibrationTests {
    static func point(_ raw: Double, _ mgdl: Double, minute: Int64) -> XBridgeCalibration.Point {
        .init(raw: raw, reference: GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: .zero + .seconds(minute * 60))
    }

    @Test func uncalibratedGivesNoGlucose() {
        let calibration = XBridgeCalibration()
        #expect(!calibration.isCalibrated)
        #expect(calibration.glucose(raw: 150_000) == nil)
    }

    @Test func onePointIsARatioThroughTheOrigin() {
        let calibration = XBridgeCalibration(points: [Self.point(150_000, 120, minute: 0)])
        #expect(calibration.line?.slope == 120.0 / 150_000)
        #expect(calibration.line?.intercept == 0)
        #expect(calibration.glucose(raw: 150_000)?.milligramsPerDeciliter == 120)
        #expect(calibration.glucose(raw: 75_000)?.milligramsPerDeciliter == 60)
    }

    @Test func twoPointsGiveTheLineThroughBoth() throws {
        // 100 000 → 80 and 200 000 → 230: slope 150/100 000 = 0.0015, intercept −70.
        let calibration = XBridgeCalibration(points: [Self.point(100_000, 80, minute: 0), Self.point(200_000, 230, minute: 60)])
        let line = try #require(calibration.line)
        #expect(abs(line.slope - 0.0015) < 1e-12)
        #expect(abs(line.intercept + 70) < 1e-9)
        #expect(abs(calibration.glucose(raw: 150_000)!.milligramsPerDeciliter - 155) < 1e-9)
    }

    @Test func leastSquaresOverThreePoints() throws {
        // By hand: x = 1e5, 2e5, 3e5; y = 100, 160, 280; means 2e5 and 180; sxx = 2e10,
        // sxy = (−1e5)(−80) + 0·(−20) + (1e5)(100) = 1.8e7 → slope 9e-4, intercept 180 − 9e-4·2e5 = 0.
        let calibration = XBridgeCalibration(points: [Self.point(100_000, 100, minute: 0), Self.point(200_000, 160, minute: 1),
                                                      Self.point(300_000, 280, minute: 2)])
        let line = try #require(calibration.line)
        #expect(abs(line.slope - 0.0009) < 1e-12)
        #expect(abs(line.intercept) < 1e-9)
    }

    @Test func contradictoryPointsFallBackToTheNewestRatio() throws {
        // Higher raw, lower glucose: a negative slope is not trusted.
        let calibration = XBridgeCalibration(points: [Self.point(100_000, 200, minute: 0), Self.point(200_000, 100, minute: 10)])
        let line = try #require(calibration.line)
        #expect(line.slope == 100.0 / 200_000)
        #expect(line.intercept == 0)
    }

    @Test func equalRawValuesFallBackToTheNewestRatio() throws {
        let calibration = XBridgeCalibration(points: [Self.point(100_000, 90, minute: 0), Self.point(100_000, 110, minute: 10)])
        #expect(try #require(calibration.line).slope == 110.0 / 100_000)
    }

    @Test func keepsOnlyTheNewestSixPoints() {
        var calibration = XBridgeCalibration()
        for minute in 0..<8 { calibration.add(Self.point(Double(100_000 + minute), 100, minute: Int64(minute))) }
        #expect(calibration.points.count == 6)
        #expect(calibration.points.first?.raw == 100_002)
        #expect(calibration.points.last?.raw == 100_007)
    }
}
