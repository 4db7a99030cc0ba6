import Clocks

/// The storage fault: raised while any write failed at its last attempt, or anything was lost
/// for good in this run, or the history is not open; state files that failed saved again.
extension Supervisor {
    /// A state file to write; nothing when there is no state directory (the demo).
    mutating func save(_ file: StateFile) {
        if configuration.savesState { actions.append(.save(file)) }
    }

    /// Whether a write of `what` worked feeds the storage fault: raised when any write fails,
    /// cleared only when nothing is failing.
    mutating func stored(_ what: StoredState, _ succeeded: Bool, at now: MonotonicInstant) {
        if succeeded {
            failingStorage.remove(what)
        } else {
            failingStorage.insert(what)
            if what.isSavedAgainBySupervisor, nextSaveRetry == nil { nextSaveRetry = now + configuration.retryInterval }
        }
        showStorage(at: now)
    }

    /// Something storage lost for good: the fault stands for the rest of the run.
    mutating func lost(_ loss: StorageLoss, at now: MonotonicInstant) {
        guard storageLosses.insert(loss).inserted else { return }
        showStorage(at: now)
    }

    /// Whether the storage fault stands: a loss keeps it raised for the run (the next good
    /// write must not hide that readings were set aside or dropped), and a history not open
    /// yet keeps it until it opens.
    public var storageIsFailing: Bool {
        if case .reopening = history { return true }
        return !failingStorage.isEmpty || !storageLosses.isEmpty
    }

    private mutating func showStorage(at now: MonotonicInstant) {
        guard face != nil else { return }
        let healthy = !storageIsFailing
        let t = at(now)
        face?.update(at: t) { $0.storage(succeeded: healthy, at: t) }
    }

    /// State files that failed are saved again, whole and as they are now, every
    /// `saveRetryInterval`: the alarm state or a remembered address might otherwise wait for
    /// its next change, and the fault with it, for days.
    mutating func retryFailedSaves(at now: ClockReadings) {
        guard let due = nextSaveRetry, now.monotonic >= due else { return }
        nextSaveRetry = nil
        let retrying = failingStorage.filter(\.isSavedAgainBySupervisor)
        for what in StoredState.allCases where retrying.contains(what) {
            switch what {
            case .history, .historyRetention, .bonds:
                break  // not saved again here (`isSavedAgainBySupervisor`)
            case .historyDates:
                applyClockSettings()
            case .alarmState:
                if let face { save(.alarmState(face.alarms.engine.state, at: now.monotonic)) }
            case .rememberedTransmitters:
                save(.rememberedTransmitters(appliance.remembered))
            case .driverStates:
                save(.driverStates(driverStates))
            case .clockShift:
                save(.clockShift(clockWatch))
            }
        }
    }
}
