import Readings

/// The rate of change of Libre glucose and its Nightscout direction. The thresholds live here
/// and nowhere else.
///
/// Rate: the least-squares slope, in mg/dL per minute, of the usable (calibrated) trend records
/// of one FRAM, which are one minute apart; at least `minimumPoints` of the 16 are needed.
/// A fit over the quarter hour smooths the per-minute sensor noise that a two-point difference
/// would turn into jumping arrows.
///
/// Directions (mg/dL per minute; the Dexcom-style arrow bands xDrip's `BgReading.slopeName`
/// uses, unconfirmed beyond that source): ≤ −3.5 DoubleDown, ≤ −2 SingleDown, ≤ −1 FortyFiveDown,
/// < 1 Flat, < 2 FortyFiveUp, < 3.5 SingleUp, otherwise DoubleUp; beyond ±`plausibleLimit`
/// the rate is physiologically implausible and reported as RATE OUT OF RANGE.
public enum LibreTrendRate {
    public static let minimumPoints = 8
    /// mg/dL per minute beyond which a rate is not believed (glucose does not move this fast).
    public static let plausibleLimit = 10.0

    /// Band edges in mg/dL per minute: falling bands include their edge, rising ones exclude it,
    /// so the table reads the same from either side of Flat.
    public static let doubleEdge = 3.5
    public static let singleEdge = 2.0
    public static let fortyFiveEdge = 1.0

    public static func direction(milligramsPerDeciliterPerMinute rate: Double) -> TrendDirection {
        guard rate.isFinite, abs(rate) <= plausibleLimit else { return .rateOutOfRange }
        if rate <= -doubleEdge { return .doubleDown }
        if rate <= -singleEdge { return .singleDown }
        if rate <= -fortyFiveEdge { return .fortyFiveDown }
        if rate < fortyFiveEdge { return .flat }
        if rate < singleEdge { return .fortyFiveUp }
        if rate < doubleEdge { return .singleUp }
        return .doubleUp
    }

    /// The slope of (minutes ago, mg/dL) samples, in mg/dL per minute, forwards in time; nil
    /// with fewer than `minimumPoints` samples.
    public static func rate(_ samples: [(minutesAgo: Int, glucose: GlucoseConcentration)]) -> Double? {
        guard samples.count >= minimumPoints else { return nil }
        let xs = samples.map { -Double($0.minutesAgo) }
        let ys = samples.map(\.glucose.milligramsPerDeciliter)
        let n = Double(samples.count)
        let meanX = xs.reduce(0, +) / n, meanY = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - meanX) * (y - meanY)
            sxx += (x - meanX) * (x - meanX)
        }
        return sxx > 0 ? sxy / sxx : nil
    }
}
