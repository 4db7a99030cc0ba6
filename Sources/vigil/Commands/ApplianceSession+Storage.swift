import Clocks

/// What the session writes to storage. Each can fail on its own: the history's commit when
/// its database is locked, corrupt on one page or cannot grow its WAL, a small state file
/// when it cannot be renamed into place. One storage fault covers them all, so it stands
/// while any of them failed at its last write: a small file saving fine says nothing about
/// readings that cannot be committed, and a commit working says nothing about the alarm
/// state that could not be saved.
enum StoredState: Hashable, CaseIterable {
    case history
    case alarmState
    case rememberedTransmitters
    case driverStates
    case clockShift
    /// The re-dating of rows dated before the clock was set (`applyClockSteps`).
    case historyDates
    /// The bonds: saved, and saved again after a failure, by the HostRunner (`bondsSaved`).
    case bonds
    /// Old rows pruned (`HistoryStore.prune`): while it fails, the 1 GiB cap is not kept and
    /// the card fills up with heart beats until commits fail too.
    case historyRetention

    /// Saved again by `retryFailedSaves`. The history commits every turn, pruning runs on
    /// its own deadline, and the runner saves the bonds again itself.
    var isSavedAgainBySession: Bool {
        switch self {
        case .history, .historyRetention, .bonds: false
        case .alarmState, .rememberedTransmitters, .driverStates, .clockShift, .historyDates: true
        }
    }
}

/// What storage lost for good in this run. Writing working again does not bring it back, so
/// the storage fault stays raised for the rest of the run, for a person to look at the log.
enum StorageLoss: Hashable {
    /// The history was corrupt at start and was moved aside: months of readings set aside.
    case corruptHistory
    /// Readings that did not fit in memory while the history could not take them.
    case readingsDropped
    /// A state file that was there at start but could not be read or made no sense
    /// (`StateDirectory.problemsAtStart`): what it held is not in this run.
    case stateFile(String)
}

extension ApplianceSession {
    /// How long a state file that could not be saved waits before it is saved again. The
    /// history needs no such retry: its rows stay pending, and every turn commits them.
    static let saveRetryInterval = Duration.seconds(10)

    /// Whether a write of `what` worked (nil: nothing was written, as in the demo) feeds the
    /// storage fault: raised when any write fails, cleared only when nothing is failing.
    mutating func stored(_ what: StoredState, _ succeeded: Bool?, at now: MonotonicInstant) {
        guard let succeeded else { return }
        if succeeded {
            failingStorage.remove(what)
        } else {
            failingStorage.insert(what)
            if what.isSavedAgainBySession, nextSaveRetry == nil { nextSaveRetry = now + Self.saveRetryInterval }
        }
        showStorage(at: now)
    }

    /// Something storage lost for good: the fault stands for the rest of the run.
    mutating func lost(_ loss: StorageLoss, at now: MonotonicInstant) {
        guard storageLosses.insert(loss).inserted else { return }
        showStorage(at: now)
    }

    /// State files found unreadable at start (and set aside) are losses: this run is
    /// without what they held. Taken each turn: the bonds and the static address are read by
    /// the runner after the session is made.
    mutating func noteUnreadableStateFiles(at now: MonotonicInstant) {
        guard let names = state?.takeProblems(), !names.isEmpty else { return }
        for name in names { lost(.stateFile(name), at: now) }
        report()
    }

    /// The storage fault as the writes and losses stand: a loss keeps it raised for the run
    /// (the next good write must not hide that readings were set aside or dropped), and a
    /// history not open yet keeps it until it opens.
    private mutating func showStorage(at now: MonotonicInstant) {
        guard face != nil else { return }
        let healthy = failingStorage.isEmpty && storageLosses.isEmpty && historyReopening == nil
        let t = at(now)
        face?.update(at: t) { $0.storage(succeeded: healthy, at: t) }
    }

    /// The runner saved the bonds, or could not: a bond lost at the next restart means
    /// pairing the transmitter again by hand, so it is a storage fault like the others.
    mutating func bondsSaved(_ succeeded: Bool, at now: MonotonicInstant) {
        stored(.bonds, succeeded, at: now)
        report()
    }

    /// State files that failed are saved again, whole and as they are now, every
    /// `saveRetryInterval`: the alarm state or a remembered address might otherwise wait for
    /// its next change, and the fault with it, for days.
    mutating func retryFailedSaves(at now: MonotonicInstant) {
        guard let due = nextSaveRetry, now >= due else { return }
        nextSaveRetry = nil
        let retrying = failingStorage.filter(\.isSavedAgainBySession)
        guard !retrying.isEmpty else { return }
        for what in StoredState.allCases where retrying.contains(what) {
            switch what {
            case .history, .historyRetention, .bonds:
                break  // not saved again here (`isSavedAgainBySession`)
            case .historyDates:
                if let history { applyClockSteps(to: history, at: now) }
            case .alarmState:
                stored(what, state.flatMap { state in face.map { state.saveAlarmState($0.alarms.engine.state, at: now) } }, at: now)
            case .rememberedTransmitters:
                stored(what, state?.saveRemembered(appliance.remembered), at: now)
            case .driverStates:
                stored(what, state?.saveDriverStates(driverStates), at: now)
            case .clockShift:
                stored(what, state?.saveClockShift(clockWatch), at: now)
            }
        }
        // A fault cleared (or raised) just now is announced, recorded and shown.
        report()
    }
}
