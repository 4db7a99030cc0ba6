import Clocks
import Readings

/// Raw Libre 1 glucose to mg/dL: the linear "raw/8.5" family with optional user calibration
/// from fingersticks (docs/protocols/libre-fram.md §Raw to mg/dL, method 1: xDrip and xdripswift
/// multiply the 13-bit raw value by 117.64705 = 1000/8.5 and feed a fingerstick-calibrated linear
/// calibrator; uncalibrated that is raw / 8.5).
///
/// `glucose = slope × (raw / 8.5) + intercept`, with slope 1 and intercept 0 until fingersticks
/// say otherwise. The temperature-compensated table algorithm is not implemented: its tables are
/// not in our reference, and inventing them would be worse than this honest approximation.
///
/// Fitting (`fit(_:)`), over the points the caller passes (recent ones, see `LibreCalibrator`):
/// - two or more points spread at least `minimumSpread` apart in sensor value: least-squares
///   slope and intercept, accepted if both are within `slopeBounds` and `interceptBounds`;
/// - otherwise, or if the least-squares line is out of bounds: a single offset (slope 1,
///   intercept = mean of reference − sensor), accepted if within `interceptBounds`;
/// - otherwise: uncalibrated, with the reason. A fingerstick that asks for a bigger correction
///   than the bounds allow is more likely a bad stick (unwashed fingers) than a bad sensor, and
///   silently bending every future reading around it would be the worse failure.
public struct LibreCalibration: Hashable, Sendable, CustomStringConvertible {
    /// Raw units per mg/dL before calibration: 8.5 (xDrip's and xdripswift's 117.64705 = 1000 / 8.5).
    public static let rawUnitsPerMilligramPerDeciliter = 8.5
    /// Least-squares slopes outside this range are rejected (a 40 % gain error either way is
    /// already far beyond what a working sensor shows).
    public static let slopeBounds: ClosedRange<Double> = 0.6...1.4
    /// Offsets outside this range, in mg/dL, are rejected.
    public static let interceptBounds: ClosedRange<Double> = -50...50
    /// Least squares needs sensor values this far apart (mg/dL); closer points pin the offset
    /// but say nothing reliable about the slope.
    public static let minimumSpread = 30.0

    public enum Method: Hashable, Sendable {
        case uncalibrated
        case offset
        case leastSquares
    }

    /// A fingerstick paired with the uncalibrated sensor value at the same time.
    public struct Point: Hashable, Sendable {
        public var sensor: GlucoseConcentration
        public var reference: GlucoseConcentration
        public var takenAt: MonotonicInstant

        public init(sensor: GlucoseConcentration, reference: GlucoseConcentration, takenAt: MonotonicInstant) {
            self.sensor = sensor
            self.reference = reference
            self.takenAt = takenAt
        }
    }

    public var slope: Double
    public var intercept: Double
    public var method: Method
    /// Why a better method was not used, when it was not.
    public var fallbackReason: String?

    public static let uncalibrated = LibreCalibration(slope: 1, intercept: 0, method: .uncalibrated, fallbackReason: nil)

    public init(slope: Double, intercept: Double, method: Method, fallbackReason: String? = nil) {
        self.slope = slope
        self.intercept = intercept
        self.method = method
        self.fallbackReason = fallbackReason
    }

    /// The uncalibrated value of a raw reading: raw / 8.5 mg/dL.
    public static func uncalibrated(raw: Int) -> GlucoseConcentration {
        GlucoseConcentration(milligramsPerDeciliter: Double(raw) / rawUnitsPerMilligramPerDeciliter)
    }

    public func glucose(raw: Int) -> GlucoseConcentration { apply(Self.uncalibrated(raw: raw)) }

    public func apply(_ sensor: GlucoseConcentration) -> GlucoseConcentration {
        GlucoseConcentration(milligramsPerDeciliter: slope * sensor.milligramsPerDeciliter + intercept)
    }

    public static func fit(_ points: [Point]) -> LibreCalibration {
        guard !points.isEmpty else { return .uncalibrated }
        let xs = points.map(\.sensor.milligramsPerDeciliter)
        let ys = points.map(\.reference.milligramsPerDeciliter)
        let n = Double(points.count)
        let meanX = xs.reduce(0, +) / n
        let meanY = ys.reduce(0, +) / n
        var reason: String?
        if points.count >= 2, let spread = xs.max().flatMap({ max in xs.min().map { max - $0 } }) {
            if spread >= minimumSpread, let (slope, intercept) = FingerstickCalibration.leastSquares(zip(xs, ys).map { (x: $0, y: $1) }) {
                if slopeBounds.contains(slope) && interceptBounds.contains(intercept) {
                    return LibreCalibration(slope: slope, intercept: intercept, method: .leastSquares)
                }
                reason = "least-squares slope \(rounded(slope)) / intercept \(rounded(intercept)) mg/dL out of bounds"
            } else {
                reason = "sensor values only \(rounded(spread)) mg/dL apart, too close for a slope"
            }
        }
        let offset = meanY - meanX
        if interceptBounds.contains(offset) {
            return LibreCalibration(slope: 1, intercept: offset, method: .offset, fallbackReason: reason)
        }
        let offsetReason = "offset \(rounded(offset)) mg/dL out of bounds"
        return LibreCalibration(slope: 1, intercept: 0, method: .uncalibrated,
                                fallbackReason: reason.map { "\($0); \(offsetReason)" } ?? offsetReason)
    }

    public var description: String {
        let base = switch method {
        case .uncalibrated: "uncalibrated (raw / 8.5)"
        case .offset: "offset \(Self.rounded(intercept)) mg/dL"
        case .leastSquares: "slope \(Self.rounded(slope)), intercept \(Self.rounded(intercept)) mg/dL"
        }
        return fallbackReason.map { "\(base) (\($0))" } ?? base
    }

    static func rounded(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        return "\(hundredths / 100)"
    }
}
