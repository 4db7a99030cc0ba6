import Clocks

/// Notices the wall clock stepping: a Raspberry Pi has no real-time clock, boots in 1970 (or at
/// fake-hwclock's last save) and jumps when network time arrives. Fed the two clocks read
/// together each turn; reports a step when the wall clock moved more than `tolerance` away
/// from where the monotonic clock says it should be.
public struct WallClockWatch: Sendable {
    /// A step of the wall clock at `monotonic`: `from` is what the old clock would read then,
    /// `to` what the new one reads.
    public struct Step: Hashable, Sendable {
        public var monotonic: MonotonicInstant
        public var from: WallClockTime
        public var to: WallClockTime
        /// The old clock was not set (before `earliestBelievable`) and the new one is: the
        /// readings dated on the old one must be re-dated.
        public var setsTheClock: Bool
    }

    /// Slews by NTP and scheduling noise stay well under this; a step does not.
    public var tolerance: Duration = .seconds(30)
    public let earliestBelievable: WallClockTime
    private var last: (monotonic: MonotonicInstant, wall: WallClockTime)?
    /// The sum of the steps of an already set clock seen so far (forward positive).
    public private(set) var unexplainedShift: Duration = .zero

    /// `unexplainedShift`: what an earlier run saw (`shiftText`). A clock stepped a day ahead
    /// stays a day ahead across a restart, and a restart must not make that day of readings
    /// look old; were the clock put right while Vigil was stopped, retention keeps rows that
    /// much longer, never less.
    public init(earliestBelievable: WallClockTime, unexplainedShift: Duration = .zero) {
        self.earliestBelievable = earliestBelievable
        self.unexplainedShift = unexplainedShift
    }

    /// `unexplainedShift` as the state directory keeps it: whole seconds and a newline.
    public var shiftText: String { "\(unexplainedShift.components.seconds)\n" }

    /// The shift `shiftText` wrote; nil for anything else (the caller says so and starts at zero).
    public static func shift(parsing text: String) -> Duration? {
        let trimmed = text.hasSuffix("\n") ? text.dropLast() : Substring(text)
        guard let seconds = Int64(trimmed) else { return nil }
        return .seconds(seconds)
    }

    public mutating func observe(monotonic: MonotonicInstant, wall: WallClockTime) -> Step? {
        defer { last = (monotonic, wall) }
        guard let last else { return nil }
        let expected = last.wall + (monotonic - last.monotonic)
        let difference = wall - expected
        guard difference > tolerance || difference < .zero - tolerance else { return nil }
        if expected >= earliestBelievable && wall >= earliestBelievable { unexplainedShift += difference }
        return Step(monotonic: monotonic, from: expected, to: wall,
                    setsTheClock: expected < earliestBelievable && wall >= earliestBelievable)
    }

    /// The time by which retention ages rows: `wall` with the net forward steps of the set
    /// clock taken back out. A clock that jumps a day ahead (a bad time source) must not make a
    /// day of readings look old enough to delete; a step back only makes retention delete
    /// less, so it is believed. The first setting of the clock is not a step here: before it
    /// nothing is old enough to prune.
    public func retentionTime(wall: WallClockTime) -> WallClockTime {
        unexplainedShift > .zero ? wall - unexplainedShift : wall
    }
}
