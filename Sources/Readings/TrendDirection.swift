/// Which way glucose is heading, in the Nightscout `direction` vocabulary (Nightscout API v1
/// `Entry.direction`; docs/peer-conventions.md §Nightscout entries). The raw value is the exact
/// string Nightscout stores, spaces and capitals included, so export needs no table.
public enum TrendDirection: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case none = "NONE"
    case tripleUp = "TripleUp"
    case doubleUp = "DoubleUp"
    case singleUp = "SingleUp"
    case fortyFiveUp = "FortyFiveUp"
    case flat = "Flat"
    case fortyFiveDown = "FortyFiveDown"
    case singleDown = "SingleDown"
    case doubleDown = "DoubleDown"
    case tripleDown = "TripleDown"
    case notComputable = "NOT COMPUTABLE"
    case rateOutOfRange = "RATE OUT OF RANGE"

    /// Parses the Nightscout string exactly (Nightscout itself compares case-sensitively).
    public init?(nightscoutName: String) { self.init(rawValue: nightscoutName) }

    public var nightscoutName: String { rawValue }

    /// Arrows rising (+), falling (−) or level (0); nil when the direction is unknown
    /// (`none`, `notComputable`, `rateOutOfRange`), which rate alarms must not treat as flat.
    public var arrowCount: Int? {
        switch self {
        case .tripleUp: 3
        case .doubleUp: 2
        case .singleUp: 1
        case .fortyFiveUp, .flat, .fortyFiveDown: 0
        case .singleDown: -1
        case .doubleDown: -2
        case .tripleDown: -3
        case .none, .notComputable, .rateOutOfRange: nil
        }
    }

    /// True for the directions that say something about the rate of change.
    public var isKnown: Bool { arrowCount != nil }

    public var description: String { rawValue }
}
