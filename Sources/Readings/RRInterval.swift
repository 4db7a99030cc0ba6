/// The time between two successive R waves of the heartbeat, in the Heart Rate Measurement's
/// resolution of 1/1024 second (gatt-xml heart_rate_measurement.xml,
/// docs/protocols/sig-heart-rate.md §Heart Rate Measurement).
///
/// Stored as the raw tick count so that a value read, stored and exported round-trips exactly;
/// seconds and milliseconds are views.
public struct RRInterval: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Ticks per second of the wire value.
    public static let ticksPerSecond = 1024

    public var ticks: UInt16

    public init(ticks: UInt16) { self.ticks = ticks }

    public var seconds: Double { Double(ticks) / Double(Self.ticksPerSecond) }

    public var milliseconds: Double { Double(ticks) * 1000 / Double(Self.ticksPerSecond) }

    /// The exact duration (1/1024 s is 976,562.5 ns, so this is computed in attoseconds).
    public var duration: Duration {
        // 1 tick = 10^18 / 1024 attoseconds = 976_562_500_000_000 as.
        Duration(secondsComponent: Int64(ticks) / 1024,
                 attosecondsComponent: Int64(ticks) % 1024 * 976_562_500_000_000)
    }

    public static func < (a: Self, b: Self) -> Bool { a.ticks < b.ticks }

    public var description: String { "\(milliseconds) ms" }
}
