import Clocks

/// A glucose trace written as a script over virtual time: straight lines between knots, flat
/// before the first and after the last. The soak benchmark writes a whole day with it (a night
/// low, an afternoon high), and `curve(sessionAge:)` turns it into the `GlucoseCurve` a
/// `SimulatedDexcom` reports, so each reading and its backfill copy carry the value the script
/// has at that reading's time.
public struct GlucoseScript: Sendable, Equatable {
    /// mg/dL at a moment of virtual time (time since `MonotonicInstant.zero`).
    public struct Knot: Sendable, Equatable {
        public var at: Duration
        public var milligramsPerDeciliter: Double

        public init(at: Duration, milligramsPerDeciliter: Double) {
            self.at = at
            self.milligramsPerDeciliter = milligramsPerDeciliter
        }
    }

    /// In time order.
    public let knots: [Knot]

    /// Knots in any order; at least one is needed for a value, and none means a flat 100 mg/dL.
    public init(_ knots: [Knot]) {
        self.knots = knots.sorted { $0.at < $1.at }
    }

    /// The script's value at `time` (not clamped: `GlucoseCurve` clamps to what a Dexcom reports).
    public func milligramsPerDeciliter(at time: Duration) -> Double {
        guard let first = knots.first, let last = knots.last else { return 100 }
        if time <= first.at { return first.milligramsPerDeciliter }
        if time >= last.at { return last.milligramsPerDeciliter }
        // The first knot after `time`; the one before it exists because time > first.at.
        let after = knots.firstIndex { $0.at > time } ?? knots.count - 1
        let a = knots[after - 1], b = knots[after]
        let span = (b.at - a.at).seconds
        guard span > 0 else { return b.milligramsPerDeciliter }
        let fraction = (time - a.at).seconds / span
        return a.milligramsPerDeciliter + (b.milligramsPerDeciliter - a.milligramsPerDeciliter) * fraction
    }

    /// The script as a Dexcom reports it: reading `k` of a session that started `sessionAge`
    /// before virtual time zero was taken at `k × 5 min − sessionAge`.
    public func curve(sessionAge: Duration) -> GlucoseCurve {
        let script = self
        let interval = Duration.seconds(Int64(SimulatedDexcom.readingInterval))
        return GlucoseCurve { reading in
            script.milligramsPerDeciliter(at: interval * reading - sessionAge)
        }
    }
}
