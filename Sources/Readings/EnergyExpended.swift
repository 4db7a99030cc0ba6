/// Cumulative energy expended since the heart-rate sensor's counter was last reset, in kilojoules.
///
/// Why kilojoules: the SIG definition (gatt-xml heart_rate_measurement.xml) contradicts itself,
/// its flag text saying "kilo Joules" while the field's unit is joule. A u16 of joules would wrap
/// after 65 kJ (about 16 kcal, minutes of exercise), which makes no sense for a cumulative
/// counter; kilojoules (65,535 kJ, days of activity) is the reading parsers in the field use
/// (docs/protocols/sig-heart-rate.md §Heart Rate Measurement; docs/protocols/sources-disagree.md
/// §SIG profiles; unconfirmed against the HRS specification text).
public struct EnergyExpended: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var kilojoules: UInt16

    public init(kilojoules: UInt16) { self.kilojoules = kilojoules }

    /// Kilocalories (1 kcal = 4.184 kJ, the thermochemical calorie).
    public var kilocalories: Double { Double(kilojoules) / 4.184 }

    public static func < (a: Self, b: Self) -> Bool { a.kilojoules < b.kilojoules }

    public var description: String { "\(kilojoules) kJ" }
}
