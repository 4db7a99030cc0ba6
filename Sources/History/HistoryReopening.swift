import Alarms
import Clocks
import Readings

/// A history that could not be opened at start: the card remounted read-only after an error,
/// the state directory on a disk not mounted yet, a permission fixed a minute later. Vigil
/// runs on without it (alarms matter more than records) but does not give it up: it tries
/// again 10 s after the failure, then twice as long each time up to 5 minutes, and what
/// arrives meanwhile waits here, in memory, to be written when it opens. The storage fault
/// sounds until then.
///
/// The wait is bounded as a failed commit's rows are (`HistoryStore.pendingLimit`): past it the
/// oldest go first, counted, so a card that never comes back cannot exhaust memory.
public struct HistoryReopening: Sendable {
    /// One `HistoryStore.append`, kept with the arguments it will be made with.
    public enum Waiting: Sendable {
        /// `receivedAt` nil: dated by the transmitter's own clock, never re-dated.
        case readings([RecordedReading], receivedAt: MonotonicInstant?)
        case alarms([AlarmEvent], monotonicNow: MonotonicInstant, wallNow: WallClockTime)
        /// A fingerstick a transmitter took as its calibration.
        case calibration(Calibration, receivedAt: MonotonicInstant)

        public var rows: Int {
            switch self {
            case .readings(let readings, _): readings.count
            case .alarms(let events, _, _): events.count
            case .calibration: 1
            }
        }

        public func append(to history: HistoryStore) {
            switch self {
            case let .readings(readings, receivedAt): history.append(readings, receivedAt: receivedAt)
            case let .alarms(events, monotonicNow, wallNow): history.append(events, monotonicNow: monotonicNow, wallNow: wallNow)
            case let .calibration(calibration, receivedAt): history.append(calibration, receivedAt: receivedAt)
            }
        }
    }

    public static let firstDelay: Duration = .seconds(10)
    public static let longestDelay: Duration = .seconds(300)

    public let path: String
    /// The attempts so far, the failure at start included.
    public private(set) var attempts = 1
    public private(set) var nextAttempt: MonotonicInstant
    private var delay = Self.firstDelay
    public private(set) var waiting: [Waiting] = []
    public private(set) var waitingRows = 0
    /// Rows given up because the wait was full.
    public private(set) var dropped = 0
    public let rowLimit: Int

    public init(path: String, failedAt now: MonotonicInstant, rowLimit: Int = HistoryStore.defaultPendingLimit) {
        self.path = path
        self.rowLimit = rowLimit
        nextAttempt = now + delay
    }

    public mutating func keep(_ item: Waiting) {
        guard item.rows > 0 else { return }
        waiting.append(item)
        waitingRows += item.rows
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

    /// Everything that waited, appended in the order it arrived; the caller commits.
    public mutating func replay(into history: HistoryStore) -> Int {
        for item in waiting { item.append(to: history) }
        defer { waiting = []; waitingRows = 0 }
        return waitingRows
    }
}
