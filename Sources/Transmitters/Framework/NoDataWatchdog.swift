import Clocks

/// A "nothing arrived for too long" timer that drivers share: armed at a point in time, pushed
/// forward by every reading, and due `timeout` after the last of them.
///
/// Transmitters fail by going quiet (a strap taken off and put in a drawer, a Dexcom that lost
/// its bond); without this, a link that stays up but carries nothing would look healthy.
public struct NoDataWatchdog: Hashable, Sendable {
    public var timeout: Duration
    /// When the silence being timed began: the arming, or the last reading.
    public private(set) var since: MonotonicInstant?

    public init(timeout: Duration) { self.timeout = timeout }

    public var deadline: MonotonicInstant? { since.map { $0 + timeout } }

    public mutating func arm(at now: MonotonicInstant) { since = now }

    /// A reading arrived.
    public mutating func feed(at now: MonotonicInstant) { if since != nil { since = now } }

    public mutating func disarm() { since = nil }

    /// True, and disarmed, if the deadline has passed.
    public mutating func expire(at now: MonotonicInstant) -> Bool {
        guard let deadline, now >= deadline else { return false }
        since = nil
        return true
    }
}
