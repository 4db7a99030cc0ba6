import Readings

extension TrendDirection {
    /// Dexcom's trend numbers, which Nightscout's `trend` field and Dexcom Share's numeric
    /// `Trend` share (docs/followers.md "Trends"): 0 none, 1 DoubleUp through 7 DoubleDown,
    /// 8 not computable, 9 rate out of range.
    init?(dexcomTrendNumber number: Int64) {
        let table: [TrendDirection] = [.none, .doubleUp, .singleUp, .fortyFiveUp, .flat, .fortyFiveDown, .singleDown, .doubleDown,
                                       .notComputable, .rateOutOfRange]
        guard number >= 0, number < Int64(table.count) else { return nil }
        self = table[Int(number)]
    }

    /// Dexcom Share's trend names: Nightscout's without the spaces and capitals of the last
    /// three (`None`, `NotComputable`, `RateOutOfRange`).
    init?(dexcomTrendName name: String) {
        switch name {
        case "None": self = .none
        case "NotComputable": self = .notComputable
        case "RateOutOfRange": self = .rateOutOfRange
        default: self.init(nightscoutName: name)
        }
    }

    /// LibreLinkUp's `TrendArrow`: 1 falling quickly through 5 rising quickly. Abbott's five
    /// arrows stop at a single arrow each way, so 1 is SingleDown and 5 SingleUp.
    init?(libreLinkUpArrow arrow: Int64) {
        switch arrow {
        case 1: self = .singleDown
        case 2: self = .fortyFiveDown
        case 3: self = .flat
        case 4: self = .fortyFiveUp
        case 5: self = .singleUp
        default: return nil
        }
    }
}
