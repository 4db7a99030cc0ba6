import Clocks

/// The monotonic and the wall clock read together, by the runner only: the supervisor is fed
/// them and never reads a clock. A row is dated by the pair the supervisor saw last, so a step
/// of the wall clock between two pairs is seen before anything is dated on the new clock.
public struct ClockReadings: Hashable, Sendable {
    public var monotonic: MonotonicInstant
    public var wall: WallClockTime

    public init(monotonic: MonotonicInstant, wall: WallClockTime) {
        self.monotonic = monotonic
        self.wall = wall
    }
}
