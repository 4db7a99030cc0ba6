import Clocks
import Readings

/// The ambulatory glucose profile (AGP): sensor glucose of every day folded onto one 24-hour
/// local day, and in each time-of-day bin the 5th, 25th, 50th, 75th and 95th percentiles
/// (the chart of the consensus report; Battelino et al. 2019;
/// docs/peer-conventions.md §Reports clinicians read).
///
/// What this does, exactly: 96 bins of 15 minutes of local time (wall time + `utcOffset`), no
/// smoothing across bins (a clinician sees the data, not a model of it), percentiles by linear
/// interpolation between closest ranks (Hyndman & Fan type 7, the default of R and NumPy).
/// A bin without readings has no percentiles and the chart leaves a gap there.
public struct AmbulatoryGlucoseProfile: Equatable, Sendable {
    /// The five AGP percentiles of one bin, in mg/dL.
    public struct Percentiles: Equatable, Sendable {
        public var p5: Double
        public var p25: Double
        public var p50: Double
        public var p75: Double
        public var p95: Double

        public init(p5: Double, p25: Double, p50: Double, p75: Double, p95: Double) {
            self.p5 = p5
            self.p25 = p25
            self.p50 = p50
            self.p75 = p75
            self.p95 = p95
        }
    }

    public struct Bin: Equatable, Sendable {
        /// Minutes after local midnight where the bin starts.
        public var startMinute: Int
        public var count: Int
        /// Nil when the bin holds no reading.
        public var percentiles: Percentiles?
    }

    public var binMinutes: Int
    public var bins: [Bin]

    /// The profile of the `.glucose` readings among `readings` (other kinds ignored).
    /// `binMinutes` must divide 1440; 15 gives the usual 96 bins.
    public init<S: Sequence>(readings: S, utcOffset: Duration, binMinutes: Int = 15) where S.Element == RecordedReading {
        precondition(binMinutes > 0 && 1440 % binMinutes == 0, "bins must tile the day")
        self.binMinutes = binMinutes
        var values = [[Double]](repeating: [], count: 1440 / binMinutes)
        for reading in readings {
            guard case let .glucose(concentration, _) = reading.value else { continue }
            let minute = LocalDay.minuteOfDay(reading.wallTime, utcOffset: utcOffset)
            values[Int(minute) / binMinutes].append(concentration.milligramsPerDeciliter)
        }
        bins = values.enumerated().map { index, binValues in
            let sorted = binValues.sorted()
            let percentiles = sorted.isEmpty ? nil : Percentiles(
                p5: Self.percentile(0.05, ofSorted: sorted), p25: Self.percentile(0.25, ofSorted: sorted),
                p50: Self.percentile(0.50, ofSorted: sorted), p75: Self.percentile(0.75, ofSorted: sorted),
                p95: Self.percentile(0.95, ofSorted: sorted))
            return Bin(startMinute: index * binMinutes, count: sorted.count, percentiles: percentiles)
        }
    }

    /// The `p` quantile (0...1) of ascending, non-empty `sorted`: Hyndman & Fan type 7,
    /// h = (n − 1)·p, interpolating between the values at floor(h) and floor(h) + 1.
    public static func percentile(_ p: Double, ofSorted sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty)
        let h = Double(sorted.count - 1) * min(max(p, 0), 1)
        let lower = Int(h.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (h - Double(lower)) * (sorted[upper] - sorted[lower])
    }
}
