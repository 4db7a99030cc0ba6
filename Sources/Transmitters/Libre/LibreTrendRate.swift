import Readings

/// The rate of change of Libre glucose, in mg/dL per minute: the least-squares slope of the
/// usable (calibrated) trend records of one FRAM, which are one minute apart; at least
/// `minimumPoints` of the 16 are needed. A fit over the quarter hour smooths the per-minute
/// sensor noise that a two-point difference would turn into jumping arrows.
///
/// The arrow is not decided here: the rate goes through the one table every glucose source
/// uses, `TrendDirection(milligramsPerDeciliterPerMinute:)` (docs/trend-arrows.md).
public enum LibreTrendRate {
    public static let minimumPoints = 8

    /// The slope of (minutes ago, mg/dL) samples, in mg/dL per minute, forwards in time; nil
    /// with fewer than `minimumPoints` samples.
    public static func rate(_ samples: [(minutesAgo: Int, glucose: GlucoseConcentration)]) -> Double? {
        guard samples.count >= minimumPoints else { return nil }
        return FingerstickCalibration.leastSquares(samples.map { (x: -Double($0.minutesAgo), y: $0.glucose.milligramsPerDeciliter) })?.slope
    }
}
