import Clocks
import Readings

/// Turns G4 raw counts into glucose with the user's fingersticks: glucose = slope × raw + intercept.
///
/// The G4 sends only raw sensor counts through the Wixel; the calibration that Dexcom's
/// receiver does is ours to do (xDrip does the same in `Calibration.java`). The method here is
/// deliberately the simplest defensible one, so a reader can check it by hand:
///
/// - Each point pairs a fingerstick with the raw value measured closest to it (within
///   `pairingWindow`, 10 minutes: the G4 sends every 5, so one packet is always that close
///   unless packets were lost).
/// - The most recent `maximumPoints` (6) points are kept.
/// - With one point, the line goes through the origin (glucose = raw × reference / raw₁).
/// - With two or more whose raw values differ, an ordinary least-squares line. If that line has
///   a slope that is not positive (points that contradict each other; blood glucose rises with
///   raw counts), it is not trusted and the one-point ratio through the newest point is used.
///
/// Until the first point exists there is no calibration and `glucose(raw:)` is nil: a raw count
/// converted with an assumed slope would look like a real glucose to alarms and history, and a
/// wrong number is worse than none at a bedside. The driver reports raw values as info instead.
public struct XBridgeCalibration: Hashable, Sendable {
    public struct Point: Hashable, Sendable {
        public var raw: Double
        public var reference: GlucoseConcentration
        public var takenAt: MonotonicInstant

        public init(raw: Double, reference: GlucoseConcentration, takenAt: MonotonicInstant) {
            self.raw = raw
            self.reference = reference
            self.takenAt = takenAt
        }
    }

    public static let maximumPoints = 6
    public static let pairingWindow: Duration = .seconds(10 * 60)

    public private(set) var points: [Point] = []

    public init(points: [Point] = []) {
        for point in points { add(point) }
    }

    public mutating func add(_ point: Point) {
        points.append(point)
        points.sort { $0.takenAt < $1.takenAt }
        if points.count > Self.maximumPoints { points.removeFirst(points.count - Self.maximumPoints) }
    }

    public var isCalibrated: Bool { line != nil }

    /// (slope in mg/dL per count, intercept in mg/dL), or nil with no usable point.
    public var line: (slope: Double, intercept: Double)? {
        guard let newest = points.last(where: { $0.raw > 0 }) else { return nil }
        let ratio = (slope: newest.reference.milligramsPerDeciliter / newest.raw, intercept: 0.0)
        let usable = points.filter { $0.raw > 0 }
        guard usable.count >= 2 else { return ratio }
        let n = Double(usable.count)
        let meanX = usable.reduce(0) { $0 + $1.raw } / n
        let meanY = usable.reduce(0) { $0 + $1.reference.milligramsPerDeciliter } / n
        let sxx = usable.reduce(0) { $0 + ($1.raw - meanX) * ($1.raw - meanX) }
        let sxy = usable.reduce(0) { $0 + ($1.raw - meanX) * ($1.reference.milligramsPerDeciliter - meanY) }
        guard sxx > 0 else { return ratio }
        let slope = sxy / sxx
        guard slope > 0, slope.isFinite else { return ratio }
        return (slope, meanY - slope * meanX)
    }

    /// The calibrated glucose for a raw count, or nil when uncalibrated.
    public func glucose(raw: UInt32) -> GlucoseConcentration? {
        guard let line else { return nil }
        return GlucoseConcentration(milligramsPerDeciliter: line.slope * Double(raw) + line.intercept)
    }
}
