import Clocks
import Readings
import Testing
@testable import Transmitters

/// Every vector below is computed by hand from the rules of xDrip+ `Calibration.java`
/// (NightscoutFoundation/xDrip `calculate_w_l_s` with `DexParameters`: one calibration → slope 1,
/// intercept = bg − raw / 1000; two → slope within 0.75–1.5; more → 0.70–1.6) and
/// `CalibrationAbstract.HIGHEST_SANE_INTERCEPT` (39), with the choices docs/xbridge-calibration.md
/// states where Vigil departs (unweighted least squares, a crossed bound clamps, a spread under
/// 55 mg/dL keeps the slope at 1).
@Suite struct XBridgeCalibrationTests {
    static func point(_ raw: Double, _ mgdl: Double, minute: Int64 = 0) -> XBridgeCalibration.Point {
        .init(raw: raw, reference: GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: .zero + .seconds(minute * 60))
    }

    /// The calibration after adding `points` in order, each at its own time.
    static func calibrated(_ points: [XBridgeCalibration.Point]) -> XBridgeCalibration {
        var calibration = XBridgeCalibration()
        for point in points { _ = calibration.add(point, at: point.takenAt) }
        return calibration
    }

    static func expectLine(_ calibration: XBridgeCalibration, slope: Double, intercept: Double, method: XBridgeCalibration.Method,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        guard let line = calibration.line else {
            Issue.record("no line", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(line.slope - slope) < 1e-9, "slope \(line.slope)", sourceLocation: sourceLocation)
        #expect(abs(line.intercept - intercept) < 1e-9, "intercept \(line.intercept)", sourceLocation: sourceLocation)
        #expect(line.method == method, sourceLocation: sourceLocation)
    }

    @Test func uncalibratedGivesNoGlucose() {
        let calibration = XBridgeCalibration()
        #expect(!calibration.isCalibrated)
        #expect(calibration.glucose(raw: 150_000) == nil)
    }

    /// One fingerstick is an offset in raw / 1000 units, not a line through the origin: raw
    /// 150 000 at 120 mg/dL → slope 1, intercept 120 − 150 = −30; raw 180 000 → 150 mg/dL.
    @Test func onePointIsAnOffset() {
        let calibration = Self.calibrated([Self.point(150_000, 120)])
        Self.expectLine(calibration, slope: 1, intercept: -30, method: .singlePoint)
        #expect(calibration.glucose(raw: 180_000)?.milligramsPerDeciliter == 150)
    }

    /// Two fingersticks 120 mg/dL apart: least squares through both, slope 120 / 100 = 1.2
    /// (within 0.75–1.5), intercept 80 − 1.2 × 100 = −40; raw 150 000 → 140 mg/dL.
    @Test func twoPointsSpreadWideGiveTheirLine() {
        let calibration = Self.calibrated([Self.point(100_000, 80), Self.point(200_000, 200, minute: 60)])
        Self.expectLine(calibration, slope: 1.2, intercept: -40, method: .leastSquares)
        #expect(abs(calibration.glucose(raw: 150_000)!.milligramsPerDeciliter - 140) < 1e-9)
    }

    /// 30 mg/dL apart (under 55): the slope is not trusted; the offset through the newest,
    /// 150 − 160 = −10.
    @Test func aNarrowRangeKeepsTheSlopeAtOne() {
        let calibration = Self.calibrated([Self.point(150_000, 120), Self.point(160_000, 150, minute: 60)])
        Self.expectLine(calibration, slope: 1, intercept: -10, method: .rangeTooNarrow(spread: 30))
    }

    /// Slopes beyond xDrip's bounds are clamped to the bound crossed, through the newest point.
    /// Two points, the newest at raw 200 000: 1.7 → 1.5 (intercept 230 − 1.5 × 200 = −70),
    /// 0.6 → 0.75 (160 − 150 = 10), −1 (contradictory sticks) → 0.75 (100 − 150 = −50).
    @Test(arguments: [
        (60.0, 230.0, 1.7, 1.5, -70.0),
        (100, 160, 0.6, 0.75, 10),
        (200, 100, -1, 0.75, -50),
    ])
    func twoPointSlopeBounds(first: Double, second: Double, fitted: Double, slope: Double, intercept: Double) {
        let calibration = Self.calibrated([Self.point(100_000, first), Self.point(200_000, second, minute: 60)])
        guard case let .slopeClamped(got)? = calibration.line?.method else {
            Issue.record("not clamped: \(String(describing: calibration.line))")
            return
        }
        #expect(abs(got - fitted) < 1e-9)
        Self.expectLine(calibration, slope: slope, intercept: intercept, method: .slopeClamped(fitted: got))
    }

    /// The bounds widen with a third point: slope 0.72 is clamped to 0.75 with two points
    /// (244 − 0.75 × 300 = 19) but kept with three (100, 172, 244 at 100, 200, 300: intercept 28);
    /// 1.55 (40, 195, 350 at 100, 200, 300) is clamped to 1.5 with two points but kept with three.
    @Test func boundsWidenWithMorePoints() {
        Self.expectLine(Self.calibrated([Self.point(100_000, 100), Self.point(300_000, 244, minute: 1)]),
                        slope: 0.75, intercept: 19, method: .slopeClamped(fitted: 0.72))
        Self.expectLine(Self.calibrated([Self.point(100_000, 100), Self.point(200_000, 172, minute: 1), Self.point(300_000, 244, minute: 2)]),
                        slope: 0.72, intercept: 28, method: .leastSquares)
        let two = Self.calibrated([Self.point(100_000, 40), Self.point(200_000, 195, minute: 1)])
        #expect(two.line?.slope == 1.5)
        let three = Self.calibrated([Self.point(100_000, 40), Self.point(200_000, 195, minute: 1), Self.point(300_000, 350, minute: 2)])
        #expect(abs(three.line!.slope - 1.55) < 1e-9)
        #expect(three.line?.method == .leastSquares)
        #expect(XBridgeCalibration.slopeBounds(pointCount: 2) == 0.75...1.5)
        #expect(XBridgeCalibration.slopeBounds(pointCount: 3) == 0.70...1.6)
        #expect(XBridgeCalibration.slopeBounds(pointCount: 7) == 0.70...1.6)
    }

    /// An intercept above 39 (HIGHEST_SANE_INTERCEPT) is never used: raw 100 000 at 150 mg/dL
    /// alone gives 150 − 100 = 50, refused, still uncalibrated.
    @Test func anInsaneInterceptIsRefused() {
        var calibration = XBridgeCalibration()
        #expect(calibration.add(Self.point(100_000, 150), at: .zero)
                == .lineRefused(reason: "intercept 50.0 mg/dL is above 39 (xDrip's highest sane intercept): raw 100000 against 150 mg/dL looks like no working sensor"))
        #expect(!calibration.isCalibrated)
        #expect(calibration.points.count == 1)
    }

    /// A refused line leaves the line in use as it was: 100/80 then 200/200 gives slope 1.2
    /// and intercept −40; a third stick 165 at raw 100 000 makes the least-squares intercept
    /// (x 100, 200, 100; y 80, 200, 165: slope 0.775, intercept 45) too high: the old line stays.
    @Test func aRefusedLineKeepsThePreviousOne() {
        var calibration = Self.calibrated([Self.point(100_000, 80), Self.point(200_000, 200, minute: 60)])
        let before = calibration.line
        guard case .lineRefused = calibration.add(Self.point(100_000, 165, minute: 120), at: .zero + .seconds(120 * 60)) else {
            Issue.record("accepted \(String(describing: calibration.line))")
            return
        }
        #expect(calibration.line == before)
    }

    /// All fingersticks at one raw value: no slope to fit, the offset through the newest
    /// (170 − 150 = 20).
    @Test func oneRawValueGivesAnOffset() {
        Self.expectLine(Self.calibrated([Self.point(150_000, 100), Self.point(150_000, 170, minute: 10)]),
                        slope: 1, intercept: 20, method: .rawValuesDoNotSpread)
    }

    /// Points older than 4 days (xDrip `allForSensorInLastFourDays`) drop out.
    @Test func pointsOlderThanFourDaysDropOut() {
        var calibration = Self.calibrated([Self.point(100_000, 80)])
        let fourDaysLater = Self.point(200_000, 200, minute: 4 * 24 * 60 + 1)
        _ = calibration.add(fourDaysLater, at: fourDaysLater.takenAt)
        #expect(calibration.points == [fourDaysLater])
        Self.expectLine(calibration, slope: 1, intercept: 0, method: .singlePoint)
    }

    @Test func resetForgetsEverything() {
        var calibration = Self.calibrated([Self.point(150_000, 120)])
        calibration.reset()
        #expect(calibration.points.isEmpty)
        #expect(!calibration.isCalibrated)
    }
}
