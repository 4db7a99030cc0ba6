import Clocks

/// A history that could not be opened: the card remounted read-only after an error, the state
/// directory on a disk not mounted yet, a permission fixed a minute later. Vigil runs on
/// without it (alarms matter more than records) but does not give it up: it tries again 10 s
/// after the failure, then twice as long each time up to 5 minutes, and what arrives meanwhile
/// waits here, in memory, to be written when it opens. The storage fault sounds until then.
///
/// The wait is bounded as a failed commit's rows are (the history's pending limit): past it the
/// oldest go first, counted, so a card that never comes back cannot exhaust memory.
public struct HistoryReopening: Sendable {
    public static let firstDelay: Duration = .seconds(10)
    public static let longestDelay: Duration = .seconds(300)

    /// The attempts so far, the failure at start included.
    public private(set) var attempts = 1
    public private(set) var nextAttempt: MonotonicInstant
    private var delay: Duration
    public private(set) var waiting: [HistoryRecord] = []
    public private(set) var waitingRows = 0
    /// Rows given up because the wait was full.
    public private(set) var dropped = 0
    public let rowLimit: Int

    /// `firstDelay`: shorter only in tests.
    public init(failedAt now: MonotonicInstant, rowLimit: Int, firstDelay: Duration = Self.firstDelay) {
        self.rowLimit = rowLimit
        delay = firstDelay
        nextAttempt = now + delay
    }

    /// Keeps `record` to be written once the history opens. A batch larger than the limit is
    /// still kept whole (splitting it would store half a notification); the bound holds from
    /// the next one.
    public mutating func keep(_ record: HistoryRecord) {
        guard record.rows > 0 else { return }
        waiting.append(record)
        waitingRows += record.rows
        var first = 0
        while waitingRows > rowLimit, first < waiting.count - 1 {
            waitingRows -= waiting[first].rows
            dropped += waiting[first].rows
            first += 1
        }
        if first > 0 { waiting.removeFirst(first) }
    }

    public func isDue(at now: MonotonicInstant) -> Bool { now >= nextAttempt }

    /// Another attempt failed: the next one waits twice as long, up to `longestDelay`.
    public mutating func failed(at now: MonotonicInstant) {
        attempts += 1
        delay = min(delay * 2, Self.longestDelay)
        nextAttempt = now + delay
    }

    /// Everything that waited, in the order it arrived, handed over once.
    public mutating func takeWaiting() -> [HistoryRecord] {
        defer { waiting = []; waitingRows = 0 }
        return waiting
    }
}
