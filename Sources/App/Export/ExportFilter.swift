import Clocks
import Readings

/// Which readings an export takes: `vigil export [--since T] [--until T] [--kind K] [--device D]`
/// and the serial `EXPORT <format> [since] [until]`. The history turns it into a WHERE clause;
/// `includes` is the same rule for code that filters in memory, and the definition tests check.
public struct ExportFilter: Hashable, Sendable {
    /// Inclusive lower bound on the wall time.
    public var since: WallClockTime?
    /// Exclusive upper bound, so consecutive exports `[a, b)`, `[b, c)` neither miss nor repeat.
    public var until: WallClockTime?
    public var kind: Reading.Kind?
    public var device: DeviceID?

    public init(since: WallClockTime? = nil, until: WallClockTime? = nil, kind: Reading.Kind? = nil, device: DeviceID? = nil) {
        self.since = since
        self.until = until
        self.kind = kind
        self.device = device
    }

    /// Everything.
    public static let all = ExportFilter()

    public func includes(_ reading: RecordedReading) -> Bool {
        if let since, reading.wallTime < since { return false }
        if let until, reading.wallTime >= until { return false }
        if let kind, reading.kind != kind { return false }
        if let device, reading.device != device { return false }
        return true
    }

    /// True when no reading can match (`since` at or after `until`): a caller can answer at once.
    public var isEmpty: Bool {
        if let since, let until { return since >= until }
        return false
    }
}
