/// Which transmitter a reading came from: the name the user gave it in the configuration
/// (e.g. `hr1`, `dexcom`). Addresses change (a new Dexcom every 3 months, random addresses), the
/// configured name is what alarms and history are keyed on.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String { rawValue }
}
