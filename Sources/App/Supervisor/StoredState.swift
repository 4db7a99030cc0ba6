/// What the supervisor has written to storage. Each can fail on its own: the history's commit
/// when its database is locked, corrupt on one page or cannot grow its WAL, a small state file
/// when it cannot be renamed into place. One storage fault covers them all, so it stands while
/// any of them failed at its last write: a small file saving fine says nothing about readings
/// that cannot be committed, and a commit working says nothing about the alarm state that
/// could not be saved.
public enum StoredState: Hashable, Sendable, CaseIterable {
    case history
    case alarmState
    case rememberedTransmitters
    case driverStates
    case clockShift
    /// The re-dating of rows dated before the clock was set (`Supervisor.applyClockSettings`).
    case historyDates
    /// The bonds: saved, and saved again after a failure, by the runner (`Input.bondsSaved`).
    case bonds
    /// Old rows pruned: while it fails, the 1 GiB cap is not kept and the card fills up with
    /// heart beats until commits fail too.
    case historyRetention

    /// Saved again by the supervisor every `Supervisor.saveRetryInterval`. The history commits
    /// every turn, pruning runs on its own deadline, and the runner saves the bonds again itself.
    public var isSavedAgainBySupervisor: Bool {
        switch self {
        case .history, .historyRetention, .bonds: false
        case .alarmState, .rememberedTransmitters, .driverStates, .clockShift, .historyDates: true
        }
    }
}

/// What storage lost for good in this run. Writing working again does not bring it back, so
/// the storage fault stays raised for the rest of the run, for a person to look at the log.
public enum StorageLoss: Hashable, Sendable {
    /// The history was corrupt at start and was moved aside: months of readings set aside.
    case corruptHistory
    /// Readings that did not fit in memory while the history could not take them.
    case readingsDropped
    /// A state file that was there at start but could not be read or made no sense: what it
    /// held is not in this run.
    case stateFile(String)
}
