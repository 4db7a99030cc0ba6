import Clocks
import Readings

/// A robust straight-line fit of recent glucose: Siegel's repeated-median slope (each point's
/// median slope to the others, then the median of those), and the level now as the median of
/// each point projected to the latest time.
///
/// Why repeated medians: one noisy reading (a compression artefact, a sensor spike) moves a
/// least-squares slope or a two-point rate arbitrarily far; with at least four readings the
/// repeated median ignores any single one (xDrip4iOS #370, rate alarms triggered by noise).
/// With three readings no estimator can tell which one is wrong, hence `minimumReadings`.
public struct GlucoseTrend: Hashable, Sendable {
    public static let minimumReadings = 4
    /// Readings older than this before the latest are not used.
    public static let window = Duration.seconds(20 * 60)

    public var rate: GlucoseRate
    /// The fitted level at `time`.
    public var level: GlucoseConcentration
    public var time: MonotonicInstant

    /// Nil when fewer than `minimumReadings` samples lie inside the window ending at the latest.
    public init?(_ samples: [(time: MonotonicInstant, value: GlucoseConcentration)]) {
        guard let latest = samples.map(\.time).max() else { return nil }
        let points = samples
            .filter { latest - $0.time <= Self.window }
            .map { (minutes: ($0.time - latest).seconds / 60, value: $0.value.milligramsPerDeciliter) }
        guard points.count >= Self.minimumReadings else { return nil }
        var pointSlopes: [Double] = []
        for (i, p) in points.enumerated() {
            var slopes: [Double] = []
            for (j, q) in points.enumerated() where j != i && q.minutes != p.minutes {
                slopes.append((q.value - p.value) / (q.minutes - p.minutes))
            }
            if !slopes.isEmpty { pointSlopes.append(Self.median(slopes)) }
        }
        guard !pointSlopes.isEmpty else { return nil }
        let slope = Self.median(pointSlopes)
        let level = Self.median(points.map { $0.value - slope * $0.minutes })
        self.rate = GlucoseRate(milligramsPerDeciliterPerMinute: slope)
        self.level = GlucoseConcentration(milligramsPerDeciliter: level)
        self.time = latest
    }

    /// The straight-line forecast `ahead` of the fit's time.
    public func forecast(_ ahead: Duration) -> GlucoseConcentration {
        GlucoseConcentration(milligramsPerDeciliter:
            level.milligramsPerDeciliter + rate.milligramsPerDeciliterPerMinute * ahead.seconds / 60)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
