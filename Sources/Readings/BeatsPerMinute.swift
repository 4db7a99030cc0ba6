/// A heart rate in beats per minute.
///
/// Stored as the integer the Heart Rate Measurement carries (u8 or u16, Heart Rate Service,
/// gatt-xml heart_rate_measurement.xml), so nothing is lost or invented by conversion.
public struct BeatsPerMinute: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var value: UInt16

    public init(_ value: UInt16) { self.value = value }

    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }

    public var description: String { "\(value) bpm" }
}
