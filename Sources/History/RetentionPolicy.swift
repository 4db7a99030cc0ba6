import Clocks
import Readings

/// How long the history keeps what, and how big it may grow.
public struct RetentionPolicy: Hashable, Sendable {
    /// Per kind; a kind not listed is kept for `otherRows`.
    public var keep: [Reading.Kind: Duration]
    /// Alarm events, calibrations and unlisted kinds.
    public var otherRows: Duration
    /// A cap on the bytes in use in the main file; past it the oldest rows go, heart rate and
    /// RR intervals first (the 1 Hz streams are most of the volume and least of the value).
    public var maximumBytes: Int?
    /// Rows dated before this were dated by a clock not set yet (a board without a real-time
    /// clock boots in 1970): their age is unknown, so age never deletes them, only the size
    /// cap. They are re-dated when the clock is set while Vigil runs; were it set while Vigil
    /// was stopped, or the re-date lost, they would otherwise look decades old and go at the
    /// first prune. Nil: every row is aged by its date.
    public var unsetClockBefore: WallClockTime?

    public init(keep: [Reading.Kind: Duration], otherRows: Duration, maximumBytes: Int? = nil, unsetClockBefore: WallClockTime? = nil) {
        self.keep = keep
        self.otherRows = otherRows
        self.maximumBytes = maximumBytes
        self.unsetClockBefore = unsetClockBefore
    }

    static let day = Duration.seconds(86_400)

    /// 365 days of glucose and meter readings (a year of clinic visits), 30 days of 1 Hz heart
    /// rate and RR intervals, 365 days of the rest; no size cap.
    public static let standard = RetentionPolicy(
        keep: [.glucose: day * 365, .meterGlucose: day * 365, .heartRate: day * 30, .rrIntervals: day * 30],
        otherRows: day * 365)

    /// The order in which the size cap deletes: the 1 Hz streams first, then everything else.
    static let sizeCapOrder: [[Reading.Kind]] = [[.heartRate, .rrIntervals], [.energyExpended], Reading.Kind.allCases]
}

/// What one `prune` call did.
public struct PruneOutcome: Equatable, Sendable {
    /// Rows deleted in this call.
    public var deleted: Int
    /// False when the budget ran out (there may be more to delete): call again next turn.
    public var finished: Bool
    /// Pages returned to the file system by `incremental_vacuum`.
    public var pagesFreed: Int
}
