import Clocks
import Readings

/// Turns G4 raw counts into glucose with the user's fingersticks, with the guards xDrip+ puts
/// on the same data (NightscoutFoundation/xDrip `models/Calibration.java`, `calculate_w_l_s`
/// with `DexParameters`; `calibrations/CalibrationAbstract`; docs/xbridge-calibration.md).
///
/// The G4 sends only raw sensor counts through the Wixel; the calibration Dexcom's receiver does
/// is ours to do. Like xDrip, Vigil works in raw / 1000 ("raw units", `BgReading.raw_data`):
/// glucose = slope × raw / 1000 + intercept.
///
/// - **Points** are the fingersticks of the current sensor from the last 4 days (xDrip
///   `allForSensorInLastFourDays`), each paired by the driver with the raw value measured
///   closest to it. Fingersticks outside 40–400 mg/dL never become points
///   (`FingerstickCalibration.acceptedReference`), nor raw values outside xDrip's sane range.
/// - **One point**: slope 1 and intercept = bg − raw / 1000 — an offset, not a line through the
///   origin (xDrip's branch for ≤ 1 calibration).
/// - **Two or more, spread under 55 mg/dL** between the lowest and the highest fingerstick: the
///   slope is not trusted, and the offset through the newest point is used. xDrip computes the
///   slope anyway and asks for another calibration (`requestCalibrationIfRangeTooNarrow`, < 55);
///   Vigil takes the number as the spread below which a slope is noise (see the doc).
/// - **Otherwise** an ordinary least-squares line (xDrip weights its points by confidence and
///   age; Vigil does not, so the line can be checked by hand), with the slope bounded as
///   `DexParameters` bounds it: 0.75–1.5 with two points, 0.70–1.6 with more. A slope outside
///   is clamped to the bound it crossed, and the line goes through the newest point (as xDrip
///   recomputes the intercept from the newest calibration after `slopeOOBHandler`).
/// - **Sanity**: a line whose intercept is above 39 mg/dL (xDrip `HIGHEST_SANE_INTERCEPT`: "max
///   value that intercept can be with positive slope"), or that is not finite, is never used
///   (xDrip's `lastValid` skips such calibrations): the line in use stays what it was.
///
/// Until the first valid line exists there is no calibration and `glucose(raw:)` is nil: a raw
/// count converted with an assumed slope would look like a real glucose to alarms and history,
/// and a wrong number is worse than none at a bedside. The driver reports raw values as info.
public struct XBridgeCalibration: Hashable, Sendable {
    public struct Point: Hashable, Sendable {
        /// The G4's raw count.
        public var raw: Double
        public var reference: GlucoseConcentration
        public var takenAt: MonotonicInstant

        public init(raw: Double, reference: GlucoseConcentration, takenAt: MonotonicInstant) {
            self.raw = raw
            self.reference = reference
            self.takenAt = takenAt
        }

        /// xDrip's raw units: raw / 1000.
        public var rawUnits: Double { raw / XBridgeCalibration.countsPerRawUnit }
    }

    /// How a line was found.
    public enum Method: Hashable, Sendable, CustomStringConvertible {
        /// One fingerstick: slope 1, an offset.
        case singlePoint
        /// Fingersticks this close together (mg/dL) say nothing reliable about a slope.
        case rangeTooNarrow(spread: Double)
        case leastSquares
        /// The least-squares slope crossed a bound and was clamped to it.
        case slopeClamped(fitted: Double)
        /// Fingersticks apart, but all at one raw value: no slope to fit.
        case rawValuesDoNotSpread

        public var description: String {
            switch self {
            case .singlePoint: "one fingerstick, offset only"
            case let .rangeTooNarrow(spread): "fingersticks only \(rounded(spread)) mg/dL apart (under \(Int(XBridgeCalibration.minimumSpread))), offset only"
            case .leastSquares: "least squares"
            case let .slopeClamped(fitted): "least-squares slope \(rounded(fitted)) out of bounds, clamped"
            case .rawValuesDoNotSpread: "all at one raw value, offset only"
            }
        }
    }

    /// glucose = slope × raw / 1000 + intercept.
    public struct Line: Hashable, Sendable, CustomStringConvertible {
        /// mg/dL per raw unit (raw / 1000).
        public var slope: Double
        /// mg/dL.
        public var intercept: Double
        public var method: Method
        public var pointCount: Int

        public func glucose(raw: UInt32) -> GlucoseConcentration {
            GlucoseConcentration(milligramsPerDeciliter: slope * Double(raw) / XBridgeCalibration.countsPerRawUnit + intercept)
        }

        public var description: String {
            "slope \(rounded(slope)), intercept \(rounded(intercept)) mg/dL from \(pointCount) fingerstick(s) (\(method))"
        }
    }

    /// xDrip divides the G4's raw count by 1000 (`BgReading.create`: raw_data = raw / 1000).
    public static let countsPerRawUnit = 1000.0
    /// Points older than this are dropped (xDrip `allForSensorInLastFourDays`).
    public static let window: Duration = .seconds(4 * 24 * 3600)
    /// Below this spread of fingersticks (mg/dL) the slope is not trusted (xDrip
    /// `requestCalibrationIfRangeTooNarrow`).
    public static let minimumSpread = 55.0
    /// xDrip `CalibrationAbstract.HIGHEST_SANE_INTERCEPT`, mg/dL.
    public static let highestSaneIntercept = 39.0
    /// Raw counts a working sensor gives: xDrip `SensorSanity` DEXCOM_MIN_RAW 5 and
    /// DEXCOM_MAX_RAW 1000 in raw units, × 1000.
    public static let saneRaw: ClosedRange<UInt32> = 5_000...1_000_000
    /// How far from a fingerstick the raw value it pairs with may be: the G4 sends every 5
    /// minutes, so one packet is always this close unless packets were lost.
    public static let pairingWindow: Duration = .seconds(10 * 60)

    /// The slope bounds of xDrip's `DexParameters`: LOW_SLOPE_1/HIGH_SLOPE_1 with exactly two
    /// calibrations, LOW_SLOPE_2/HIGH_SLOPE_2 otherwise.
    public static func slopeBounds(pointCount: Int) -> ClosedRange<Double> {
        pointCount == 2 ? 0.75...1.5 : 0.70...1.6
    }

    /// The current sensor's points, oldest first.
    public private(set) var points: [Point] = []
    /// The line in use: the newest valid one.
    public private(set) var line: Line?

    public init() {}

    public var isCalibrated: Bool { line != nil }

    /// What adding a point did.
    public enum Outcome: Hashable, Sendable {
        case calibrated(Line)
        /// The new line failed the sanity check; `line` is unchanged (maybe still nil).
        case lineRefused(reason: String)
    }

    /// Adds a fingerstick (already checked against `FingerstickCalibration.acceptedReference`
    /// and paired with a sane raw value by the driver) and refits.
    public mutating func add(_ point: Point, at now: MonotonicInstant) -> Outcome {
        points.append(point)
        points.sort { $0.takenAt < $1.takenAt }
        points.removeAll { now - $0.takenAt > Self.window }
        switch Self.fit(points) {
        case let .success(fitted):
            line = fitted
            return .calibrated(fitted)
        case let .failure(refusal):
            return .lineRefused(reason: refusal.reason)
        }
    }

    /// A new sensor: nothing of the old one's calibration applies.
    public mutating func reset() {
        points = []
        line = nil
    }

    /// The calibrated glucose for a raw count, or nil when uncalibrated.
    public func glucose(raw: UInt32) -> GlucoseConcentration? { line?.glucose(raw: raw) }

    public struct Refusal: Error, Hashable, Sendable {
        public var reason: String
    }

    /// The line `points` (oldest first, at least one) give, or why it must not be used.
    public static func fit(_ points: [Point]) -> Result<Line, Refusal> {
        guard let newest = points.last else { return .failure(Refusal(reason: "no fingerstick")) }
        let offsetThroughNewest = { (slope: Double, method: Method) in
            Line(slope: slope, intercept: newest.reference.milligramsPerDeciliter - slope * newest.rawUnits,
                 method: method, pointCount: points.count)
        }
        let line: Line
        let references = points.map(\.reference.milligramsPerDeciliter)
        let spread = (references.max() ?? 0) - (references.min() ?? 0)
        if points.count == 1 {
            line = offsetThroughNewest(1, .singlePoint)
        } else if spread < minimumSpread {
            line = offsetThroughNewest(1, .rangeTooNarrow(spread: spread))
        } else if let fitted = FingerstickCalibration.leastSquares(points.map { (x: $0.rawUnits, y: $0.reference.milligramsPerDeciliter) }) {
            let bounds = slopeBounds(pointCount: points.count)
            if bounds.contains(fitted.slope) {
                line = Line(slope: fitted.slope, intercept: fitted.intercept, method: .leastSquares, pointCount: points.count)
            } else {
                line = offsetThroughNewest(min(max(fitted.slope, bounds.lowerBound), bounds.upperBound), .slopeClamped(fitted: fitted.slope))
            }
        } else {
            line = offsetThroughNewest(1, .rawValuesDoNotSpread)
        }
        guard line.slope.isFinite, line.intercept.isFinite else {
            return .failure(Refusal(reason: "the line is not finite (\(line))"))
        }
        guard line.intercept <= highestSaneIntercept else {
            return .failure(Refusal(reason: "intercept \(rounded(line.intercept)) mg/dL is above \(Int(highestSaneIntercept)) "
                + "(xDrip's highest sane intercept): raw \(Int(newest.raw)) against \(newest.reference) looks like no working sensor"))
        }
        return .success(line)
    }
}

/// Two decimals, for reasons and logs.
private func rounded(_ value: Double) -> String { "\((value * 100).rounded() / 100)" }
