import Readings

/// How long the history keeps what (issue 5 "Rolling retention"), and how big it may grow.
public struct RetentionPolicy: Hashable, Sendable {
    /// Per kind; a kind not listed is kept for `otherRows`.
    public var keep: [Reading.Kind: Duration]
    /// Alarm events, calibrations and unlisted kinds.
    public var otherRows: Duration
    /// A cap on the bytes in use in the main file; past it the oldest rows go, heart rate and
    /// RR intervals first (the 1 Hz streams are most of the volume and least of the value).
    public var maximumBytes: Int?

    public init(keep: [Reading.Kind: Duration], otherRows: Duration, maximumBytes: Int? = nil) {
        self.keep = keep
        self.otherRows = otherRows
        self.maximumBytes = maximumBytes
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
