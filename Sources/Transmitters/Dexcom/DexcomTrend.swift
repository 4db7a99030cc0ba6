import Readings

extension Dexcom {
    /// Turns the trend byte (0.1 mg/dL per minute, protocols.md §1.6) into a Nightscout
    /// direction. The thresholds, in mg/dL per minute, are the Nightscout/xDrip convention
    /// (the slope buckets at ±1, ±2 and ±3 mg/dL/min that Nightscout and xDrip use for arrows):
    /// ≤ −3 DoubleDown, ≤ −2 SingleDown, ≤ −1 FortyFiveDown, < 1 Flat, < 2 FortyFiveUp,
    /// < 3 SingleUp, otherwise DoubleUp. 127 is "unknown" (xDrip `getTrend`) and −128 is
    /// rejected by CGMBLEKit; both become NOT COMPUTABLE.
    public enum Trend {
        public static let unknownByte: Int8 = 127

        /// Upper bounds, tenths of mg/dL/min, checked in order; kept in one table so the
        /// convention is written once.
        static let buckets: [(tenthsAtMost: Int, direction: TrendDirection)] = [
            (-30, .doubleDown), (-20, .singleDown), (-10, .fortyFiveDown),
            (9, .flat), (19, .fortyFiveUp), (29, .singleUp),
        ]

        public static func direction(trendByte: Int8) -> TrendDirection {
            if trendByte == unknownByte || trendByte == .min { return .notComputable }
            let tenths = Int(trendByte)
            return buckets.first { tenths <= $0.tenthsAtMost }?.direction ?? .doubleUp
        }

        /// The rate in mg/dL per minute, nil when unknown.
        public static func rate(trendByte: Int8) -> Double? {
            trendByte == unknownByte || trendByte == .min ? nil : Double(trendByte) / 10
        }
    }
}
