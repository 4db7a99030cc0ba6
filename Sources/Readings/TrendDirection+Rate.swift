extension TrendDirection {
    /// The arrow for a rate of change of glucose, in mg/dL per minute: the one table every
    /// glucose source goes through (docs/trend-arrows.md).
    ///
    /// The table is xDrip+'s `BgReading.slopeName` (NightscoutFoundation/xDrip,
    /// app/src/main/java/com/eveningoutpost/dexdrip/models/BgReading.java), which xdripswift's
    /// BgReading repeats "for upload to NightScout": the arrows Nightscout shows for xDrip users.
    /// Each band includes its upper edge, checked from the bottom up:
    ///
    /// | rate r (mg/dL/min) | direction |
    /// |---|---|
    /// | r ≤ −3.5 | DoubleDown |
    /// | r ≤ −2 | SingleDown |
    /// | r ≤ −1 | FortyFiveDown |
    /// | r ≤ 1 | Flat |
    /// | r ≤ 2 | FortyFiveUp |
    /// | r ≤ 3.5 | SingleUp |
    /// | r ≤ 40 | DoubleUp |
    /// | r > 40 | NONE |
    ///
    /// A rate that is not a finite number (NaN, ±∞) is NOT COMPUTABLE. The source compares NaN
    /// to nothing and so names it NONE, and sends −∞ to DoubleDown; Vigil says plainly that it
    /// has no rate instead.
    public init(milligramsPerDeciliterPerMinute rate: Double) {
        guard rate.isFinite else {
            self = .notComputable
            return
        }
        self = Self.rateBands.first { rate <= $0.atMost }?.direction ?? .none
    }

    /// The bands of `init(milligramsPerDeciliterPerMinute:)`: each direction with the largest
    /// rate it covers, in mg/dL per minute, lowest first.
    public static let rateBands: [(atMost: Double, direction: TrendDirection)] = [
        (-3.5, .doubleDown), (-2, .singleDown), (-1, .fortyFiveDown), (1, .flat),
        (2, .fortyFiveUp), (3.5, .singleUp), (40, .doubleUp),
    ]
}
