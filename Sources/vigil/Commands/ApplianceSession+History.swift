import Clocks
import History
import Platform

/// Opening the rolling history, at start and again while it cannot be opened.
extension ApplianceSession {
    /// The history at `path`. A corrupt file is moved aside and a fresh one started; either that
    /// or a history that cannot be opened at all sounds the storage fault, and the latter is
    /// tried again (`HistoryReopening`) while the appliance keeps running: alarms matter more
    /// than records, and records matter enough not to give up on them.
    mutating func openHistory(path: String, at now: MonotonicInstant) {
        do {
            adopt(try HistoryStore.open(path: path), at: now)
        } catch {
            logger.log(.error, "history: cannot open \(path): \(error); readings wait in memory and it is tried again in \(HistoryReopening.firstDelay)")
            historyReopening = HistoryReopening(path: path, failedAt: now)
            stored(.history, false, at: now)
            if serialExportAwaitingHistory != nil { logger.log(.warning, "serial export: waits for the history to open") }
        }
    }

    /// Appended to the history, or kept until it opens.
    mutating func record(_ item: HistoryReopening.Waiting) {
        if let history {
            item.append(to: history)
        } else {
            historyReopening?.keep(item)
        }
    }

    /// Another attempt, when one is due; on success what waited is written, the clock steps
    /// missed are applied, the serial export starts and the storage fault clears.
    mutating func reopenHistoryIfDue(at now: MonotonicInstant) {
        guard history == nil, var reopening = historyReopening, reopening.isDue(at: now) else { return }
        // A state directory that could not be made at start may be makeable now (the open
        // below says why when it still is not).
        if let slash = reopening.path.lastIndex(of: "/"), slash > reopening.path.startIndex {
            let directory = String(reopening.path[..<slash])
            if !FileSystem.exists(path: directory) { try? FileSystem.createDirectories(path: directory, mode: 0o700) }
        }
        let opened: HistoryStore
        do {
            opened = try HistoryStore.open(path: reopening.path)
        } catch {
            reopening.failed(at: now)
            historyReopening = reopening
            logger.log(.warning, "history: still cannot open \(reopening.path) (attempt \(reopening.attempts)): \(error); "
                + "\(reopening.waitingRows) rows wait in memory; next attempt in \(reopening.nextAttempt - now)")
            return
        }
        let attempts = reopening.attempts + 1
        let dropped = reopening.dropped
        let rows = reopening.replay(into: opened)
        historyReopening = nil  // before `stored(.history, true)` below, which it would ignore
        logger.log(.notice, "history: opened \(reopening.path) at attempt \(attempts); \(rows) rows that waited in memory are written"
            + (dropped > 0 ? " (\(dropped) older ones did not fit and are lost)" : ""))
        adopt(opened, at: now)
        switch opened.commit() {
        case .nothingPending, .committed:
            stored(.history, true, at: now)
        case let .failed(error, pending, _):
            // `.history` stays failing from the failed open: the normal turn retries the
            // commit and keeps the fault raised meanwhile.
            logger.log(.error, "history: cannot write (\(error)); \(pending) rows kept in memory")
        }
        applyClockSteps(to: opened, at: now)
    }

    /// Rows dated by the clock before it was set get the date it was set to. A re-date that
    /// fails (the history refusing writes just then) is kept and tried again with the state
    /// files, every `saveRetryInterval`, and the storage fault stands meanwhile: those rows
    /// would otherwise keep dates decades old, and retention would delete them as expired.
    mutating func applyClockSteps(to history: HistoryStore, at now: MonotonicInstant) {
        guard !clockStepsNotApplied.isEmpty else { return }
        while let jump = clockStepsNotApplied.first {
            do {
                let moved = try history.redate(jump)
                clockStepsNotApplied.removeFirst()
                logger.log(.notice, "history: \(moved) rows dated before the clock was set were re-dated")
            } catch {
                logger.log(.error, "history: re-dating after the clock was set failed: \(error); tried again in \(Self.saveRetryInterval)")
                stored(.historyDates, false, at: now)
                return
            }
        }
        stored(.historyDates, true, at: now)
    }

    private mutating func adopt(_ history: HistoryStore, at now: MonotonicInstant) {
        switch history.outcome {
        case let .recreatedAfterCorruption(movedTo, reason):
            logger.log(.error, "history: \(history.path) was corrupt (\(reason)); moved to \(movedTo), a fresh history is started")
            historyWasCorrupt = true
            stored(.history, false, at: now)
        case .created:
            logger.log(.notice, "history: created \(history.path)")
        case let .opened(version):
            logger.log(.info, "history: \(history.path) (schema \(version))")
        }
        self.history = history
        if let make = serialExportAwaitingHistory {
            serialExportAwaitingHistory = nil
            let server = make(history)
            server.open(at: now)
            serialExport = server
        }
    }
}
