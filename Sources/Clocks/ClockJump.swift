/// The wall clock stepped (the first network time sync after boot: a Raspberry Pi has no
/// real-time clock and starts in 1970, or at fake-hwclock's last shutdown time).
///
/// Both wall times are the wall clock's readings at the same monotonic instant: `from` is what
/// the old clock would have said then (the runner's last wall reading plus the monotonic time
/// elapsed since), `to` what the new one says. Every row received in this boot at or before
/// `monotonic` was dated on the old clock, so shifting it by `to - from` dates it on the new.
public struct ClockJump: Hashable, Sendable {
    public var monotonic: MonotonicInstant
    public var from: WallClockTime
    public var to: WallClockTime

    public init(monotonic: MonotonicInstant, from: WallClockTime, to: WallClockTime) {
        self.monotonic = monotonic
        self.from = from
        self.to = to
    }

    public var shift: Duration { to - from }
}
