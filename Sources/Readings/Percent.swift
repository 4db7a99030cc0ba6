/// A whole percentage, 0 through 100 (battery level, sensor life).
///
/// The only way to build one is through a range check, so a `Percent` in hand is always valid;
/// decoders turn out-of-range wire values into typed errors instead (Battery Level 101–255 are
/// reserved, gatt-xml battery_level.xml).
public struct Percent: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let value: UInt8

    /// Nil unless `value` is in 0...100.
    public init?(_ value: Int) {
        guard (0...100).contains(value) else { return nil }
        self.value = UInt8(value)
    }

    public static let zero = Percent(unchecked: 0)
    public static let full = Percent(unchecked: 100)

    private init(unchecked value: UInt8) { self.value = value }

    /// The fraction 0.0...1.0.
    public var fraction: Double { Double(value) / 100 }

    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }

    public var description: String { "\(value) %" }
}
