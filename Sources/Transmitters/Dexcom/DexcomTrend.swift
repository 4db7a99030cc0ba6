import Readings

extension Dexcom {
    /// The trend byte of a glucose message (byte 13; docs/trend-arrows.md):
    /// an i8 in 0.1 mg/dL per minute (CGMBLEKit divides by 10). 127 means "unknown" (xDrip
    /// `BaseGlucoseRxMessage.getTrend`) and CGMBLEKit also rejects −128; both are no rate.
    ///
    /// The arrow comes from the rate through the one table every glucose source uses,
    /// `TrendDirection(milligramsPerDeciliterPerMinute:)` (xDrip+ `BgReading.slopeName`).
    public enum Trend {
        public static let unknownByte: Int8 = 127

        public static func direction(trendByte: Int8) -> TrendDirection {
            rate(trendByte: trendByte).map(TrendDirection.init(milligramsPerDeciliterPerMinute:)) ?? .notComputable
        }

        /// The rate in mg/dL per minute, nil when unknown. A division by 10 rather than a
        /// multiplication by 0.1, so −35 is exactly −3.5, a band edge.
        public static func rate(trendByte: Int8) -> Double? {
            trendByte == unknownByte || trendByte == .min ? nil : Double(trendByte) / 10
        }
    }
}
