import Clocks
import Readings

/// Which readings to read back: a wall-clock window (since inclusive, until exclusive), and
/// optionally one kind and one device. Results come ordered by wall time.
public struct HistoryQuery: Hashable, Sendable {
    public var since: WallClockTime?
    public var until: WallClockTime?
    public var kind: Reading.Kind?
    public var device: DeviceID?

    public init(since: WallClockTime? = nil, until: WallClockTime? = nil, kind: Reading.Kind? = nil, device: DeviceID? = nil) {
        self.since = since
        self.until = until
        self.kind = kind
        self.device = device
    }

    public static let everything = HistoryQuery()
}
