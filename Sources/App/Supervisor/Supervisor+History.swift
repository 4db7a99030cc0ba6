import Clocks

/// The rolling history: opened at start and again with back-off while it cannot be; one
/// transaction per turn, whose failure keeps the rows in memory (bounded) and sounds the
/// storage fault until a commit works; pruned a little at a time; re-dated when the wall clock
/// is set.
extension Supervisor {
    /// Whether the history is open.
    public var historyIsOpen: Bool {
        if case .open = history { return true }
        return false
    }

    /// The history being opened again, with what waits for it; nil when it is not.
    public var historyReopening: HistoryReopening? {
        if case let .reopening(reopening, _) = history { return reopening }
        return nil
    }

    private var historyPath: String { configuration.historyPath ?? "" }

    /// Appended to the history, or kept until it opens.
    mutating func record(_ record: HistoryRecord) {
        guard record.rows > 0 else { return }
        noteQueued(record)
        switch history {
        case .open:
            actions.append(.record(record))
            history = .open(pending: true)
        case .reopening(var reopening, let attempting):
            reopening.keep(record)
            history = .reopening(reopening, attempting: attempting)
        case .none, .starting:
            break
        }
    }

    /// Another attempt, when one is due, on a thread of its own: the loop keeps turning while
    /// the file is checked, and hears the end as `historyOpened` or `historyOpenFailed`.
    mutating func reopenHistoryIfDue(at now: ClockReadings) {
        guard case let .reopening(reopening, false) = history, reopening.isDue(at: now.monotonic) else { return }
        history = .reopening(reopening, attempting: true)
        log(.info, "history: opening \(historyPath) again (attempt \(reopening.attempts + 1))")
        actions.append(.openHistory(attempt: reopening.attempts + 1))
    }

    /// The history opened: what waited is written, the clock settings missed are applied, the
    /// serial export starts and the storage fault clears.
    mutating func historyOpened(_ outcome: HistoryOpenOutcome, at now: ClockReadings) {
        switch history {
        case .starting:
            adopt(outcome, at: now.monotonic)
            loadRecentGlucose(at: now)
            startUpload(at: now)
        case let .reopening(reopening, _):
            var reopening = reopening
            let waiting = reopening.takeWaiting()
            let rows = waiting.reduce(0) { $0 + $1.rows }
            if exiting {
                sayHowItOpened(outcome)
                history = .open(pending: true)
                for record in waiting { actions.append(.record(record)) }
                for setting in clockSettingsNotApplied { actions.append(.redateHistory(setting)) }
                rowsWrittenAtExit = rows
                actions.append(.commitHistory)
                return
            }
            history = .open(pending: true)  // before `stored(.history, true)`, which the fault would ignore otherwise
            if reopening.dropped > 0 { lost(.readingsDropped, at: now.monotonic) }
            log(.notice, "history: opened \(historyPath) at attempt \(reopening.attempts + 1); \(rows) rows that waited in memory are written"
                + (reopening.dropped > 0 ? " (\(reopening.dropped) older ones did not fit and are lost)" : ""))
            adopt(outcome, at: now.monotonic)
            loadRecentGlucose(at: now)
            for record in waiting { actions.append(.record(record)) }
            // `.history` stays failing from the failed open until this commit works.
            actions.append(.commitHistory)
            applyClockSettings()
            startUpload(at: now)
        case .none, .open:
            break
        }
    }

    private mutating func adopt(_ outcome: HistoryOpenOutcome, at now: MonotonicInstant) {
        sayHowItOpened(outcome)
        if case .starting = history { history = .open(pending: false) }
        if case .recreatedAfterCorruption = outcome {
            lost(.corruptHistory, at: now)
            stored(.history, false, at: now)
        }
        if configuration.serialExportConfigured { actions.append(.startSerialExport) }
    }

    /// The log line for how the history was found: created, opened, or corrupt and moved aside.
    private mutating func sayHowItOpened(_ outcome: HistoryOpenOutcome) {
        switch outcome {
        case let .recreatedAfterCorruption(movedTo, reason):
            log(.error, "history: \(historyPath) was corrupt (\(reason)); moved to \(movedTo), a fresh history is started")
        case .created:
            log(.notice, "history: created \(historyPath)")
        case let .opened(version):
            log(.info, "history: \(historyPath) (schema \(version))")
        }
    }

    mutating func historyOpenFailed(_ error: String, at now: MonotonicInstant) {
        switch history {
        case .starting:
            log(.error, "history: cannot open \(historyPath): \(error); readings wait in memory and it is tried again in \(configuration.retryInterval)")
            history = .reopening(HistoryReopening(failedAt: now, rowLimit: configuration.historyRowLimit, firstDelay: configuration.retryInterval), attempting: false)
            stored(.history, false, at: now)
            if configuration.serialExportConfigured { log(.warning, "serial export: waits for the history to open") }
        case .reopening(var reopening, _):
            if exiting { return sayLostAtExit(reopening) }
            reopening.failed(at: now)
            history = .reopening(reopening, attempting: false)
            log(.warning, "history: still cannot open \(historyPath) (attempt \(reopening.attempts)): \(error); "
                + "\(reopening.waitingRows) rows wait in memory; next attempt in \(reopening.nextAttempt - now)")
        case .none, .open:
            break
        }
    }

    mutating func historyCommitted(droppedTotal: Int, at now: MonotonicInstant) {
        if let rows = rowsWrittenAtExit {
            log(.notice, "history: opened \(historyPath) at exit; \(rows) rows that waited in memory are written")
            rowsWrittenAtExit = nil
        }
        guard case .open = history else { return }
        history = .open(pending: false)
        saidDropped(droppedTotal, at: now)
        stored(.history, true, at: now)
    }

    mutating func historyCommitFailed(_ error: String, pending: Int, droppedTotal: Int, at now: MonotonicInstant) {
        if rowsWrittenAtExit != nil {
            rowsWrittenAtExit = nil
            return log(.error, "history: opened \(historyPath) at exit, but \(pending) rows could not be written: \(error)")
        }
        if exiting { return log(.error, "history: \(pending) rows could not be written at exit: \(error)") }
        // Whatever this commit did: rows may be dropped in the very turn writing works again.
        saidDropped(droppedTotal, at: now)
        log(.error, "history: cannot write (\(error)); \(pending) rows kept in memory")
        stored(.history, false, at: now)
    }

    private mutating func saidDropped(_ droppedTotal: Int, at now: MonotonicInstant) {
        guard droppedTotal > readingsDroppedSaid else { return }
        log(.error, "history: \(droppedTotal - readingsDroppedSaid) older readings did not fit in memory while it could not be written, and are lost")
        readingsDroppedSaid = droppedTotal
        lost(.readingsDropped, at: now)
    }

    /// A prune that fails is the storage fault, tried again every `saveRetryInterval`: the
    /// cap is what keeps a card shared with the system from filling up, and nothing else
    /// would say it is not kept.
    mutating func historyPruned(finished: Bool, summary: String, at now: MonotonicInstant) {
        log(.debug, "history: pruned \(summary)")
        nextPrune = now + (finished ? Self.pruneInterval : Self.pruneCatchUpInterval)
        if failingStorage.contains(.historyRetention) { log(.notice, "history: pruning works again") }
        stored(.historyRetention, true, at: now)
    }

    mutating func historyPruneFailed(_ error: String, at now: MonotonicInstant) {
        log(.error, "history: pruning failed: \(error); old rows are kept and the size cap is not enforced; tried again in \(configuration.retryInterval)")
        nextPrune = now + configuration.retryInterval
        stored(.historyRetention, false, at: now)
    }

    // MARK: Exit

    /// What waits is written at exit: the open history's pending rows committed; an attempt
    /// still running waited for (`historyOpenWaitAtExit`), so what waited in memory is written
    /// rather than lost; else the loss is said.
    mutating func beginExit() {
        exiting = true
        notify(["STOPPING=1"])
        if usbExportRunning { actions.append(.stopUSBExport) }
        switch history {
        case .open(pending: true):
            actions.append(.commitHistory)
        case .reopening(_, attempting: true):
            actions.append(.finishHistoryOpening(waitUpTo: Self.historyOpenWaitAtExit))
        case let .reopening(reopening, attempting: false):
            sayLostAtExit(reopening)
        case .none, .starting, .open:
            break
        }
    }

    mutating func historyOpenDidNotEnd() {
        guard case let .reopening(reopening, _) = history else { return }
        log(.error, "history: opening \(historyPath) did not end within \(Self.historyOpenWaitAtExit) of exit")
        sayLostAtExit(reopening)
    }

    private mutating func sayLostAtExit(_ reopening: HistoryReopening) {
        guard reopening.waitingRows > 0 else { return }
        log(.error, "history: \(reopening.waitingRows) rows that waited for \(historyPath) to open are lost at exit")
    }
}
