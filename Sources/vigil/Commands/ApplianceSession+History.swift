import App
import Clocks
import History
import Platform
import Readings

/// Opening the rolling history, at start and again while it cannot be opened.
extension ApplianceSession {
    /// The history at `path`. A corrupt file is moved aside and a fresh one started; either that
    /// or a history that cannot be opened at all sounds the storage fault, and the latter is
    /// tried again (`HistoryReopening`) while the appliance keeps running: alarms matter more
    /// than records, and records matter enough not to give up on them.
    mutating func openHistory(path: String, at now: MonotonicInstant) {
        do {
            adopt(try HistoryStore.open(path: path, pendingLimit: historyRowLimit), at: now)
        } catch {
            logger.log(.error, "history: cannot open \(path): \(error); readings wait in memory and it is tried again in \(HistoryReopening.firstDelay)")
            historyReopening = HistoryReopening(path: path, failedAt: now, rowLimit: historyRowLimit)
            stored(.history, false, at: now)
            if serialExportAwaitingHistory != nil { logger.log(.warning, "serial export: waits for the history to open") }
        }
    }

    /// Shows the watch a pair of clock readings taken together, and acts on a step: said in
    /// the log; a clock being set re-dates the rows the unset clock dated; a step of a set
    /// clock is saved for retention. Every row is dated by a pair the watch saw first
    /// (`report`), so the rows of the old clock are exactly those received up to the pair
    /// before the step was seen: that pair is the re-date's cut-off. Cutting at the pair that
    /// saw the step moved the rows dated on the new clock in between a second time, decades
    /// ahead. Returns whether the clock stepped.
    @discardableResult
    mutating func watchClock(monotonic now: MonotonicInstant, wall wallNow: WallClockTime) -> Bool {
        guard history != nil || historyReopening != nil else { return false }
        let previous = clockWatchedAt ?? now
        clockWatchedAt = max(now, previous)
        guard let step = clockWatch.observe(monotonic: now, wall: wallNow) else { return false }
        logger.log(.notice, "the wall clock stepped by \(step.to - step.from)")
        nextClockCheck = now  // a clock just set clears clock-not-set now, not within the minute
        if step.setsTheClock {
            clockStepsNotApplied.append(ClockJump(monotonic: previous, from: step.from, to: step.to))
            if let history { applyClockSteps(to: history, at: now) }
        } else {
            // Kept for the next run: a restart on a clock still a day ahead must not prune.
            stored(.clockShift, state?.saveClockShift(clockWatch), at: now)
        }
        return true
    }

    /// The readings of an event (and a calibration a transmitter accepted), dated by the pair
    /// of clock readings given. A reading the
    /// transmitter dated on its own calendar clock (a meter's records) is stored without a
    /// reception instant: the board's clock being set later re-dates what the board's clock
    /// dated, never what the meter's did.
    mutating func recordReadings(of event: ApplianceEvent, monotonicNow now: MonotonicInstant, wallNow: WallClockTime) {
        if case let .transmitter(device, _, .calibration(report)) = event, report.isAccepted {
            // The calibrations a transmitter took, dated when the blood was taken.
            record(.calibration(Calibration(device: device, glucose: report.reference, wallTime: wallNow - (now - report.takenAt)),
                                receivedAt: now))
            return
        }
        guard case let .readings(_, _, readings) = event else { return }
        var boardDated: [RecordedReading] = [], ownClock: [RecordedReading] = []
        for (reading, row) in zip(readings, event.recordedReadings(monotonicNow: now, wallNow: wallNow)) {
            if case .wallClock = reading.time { ownClock.append(row) } else { boardDated.append(row) }
        }
        if !boardDated.isEmpty { record(.readings(boardDated, receivedAt: now)) }
        if !ownClock.isEmpty { record(.readings(ownClock, receivedAt: nil)) }
    }

    /// Appended to the history, or kept until it opens.
    mutating func record(_ item: HistoryReopening.Waiting) {
        if let history {
            item.append(to: history)
        } else {
            historyReopening?.keep(item)
        }
    }

    /// Another attempt, when one is due, on a thread of its own (`HistoryOpening`): the loop
    /// keeps turning while the file is checked, and hears the end through the job's descriptor
    /// (`historyOpened`).
    mutating func reopenHistoryIfDue(at now: MonotonicInstant) {
        guard history == nil, historyOpening == nil, let reopening = historyReopening, reopening.isDue(at: now) else { return }
        // A state directory that could not be made at start may be makeable now (the open
        // says why when it still is not).
        if let slash = reopening.path.lastIndex(of: "/"), slash > reopening.path.startIndex {
            let directory = String(reopening.path[..<slash])
            if !FileSystem.exists(path: directory) { try? FileSystem.createDirectories(path: directory, mode: 0o700) }
        }
        do {
            historyOpening = try HistoryOpening.start(path: reopening.path, pendingLimit: historyRowLimit, delay: historyOpenDelay)
            logger.log(.info, "history: opening \(reopening.path) again (attempt \(reopening.attempts + 1))")
        } catch {
            reopeningFailed(error, at: now)
        }
    }

    /// The attempt's end: on success what waited is written, the clock steps missed are
    /// applied, the serial export starts and the storage fault clears.
    mutating func historyOpened(_ result: Result<HistoryStore, HistoryError>, at now: MonotonicInstant) {
        guard history == nil, var reopening = historyReopening else { return }
        let opened: HistoryStore
        switch result {
        case let .success(store): opened = store
        case let .failure(error): return reopeningFailed(error, at: now)
        }
        let attempts = reopening.attempts + 1
        let dropped = reopening.dropped
        let rows = reopening.replay(into: opened)
        historyReopening = nil  // before `stored(.history, true)` below, which it would ignore
        if dropped > 0 { lost(.readingsDropped, at: now) }
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

    private mutating func reopeningFailed(_ error: any Error, at now: MonotonicInstant) {
        guard var reopening = historyReopening else { return }
        reopening.failed(at: now)
        historyReopening = reopening
        logger.log(.warning, "history: still cannot open \(reopening.path) (attempt \(reopening.attempts)): \(error); "
            + "\(reopening.waitingRows) rows wait in memory; next attempt in \(reopening.nextAttempt - now)")
    }

    /// At exit, an attempt still running is given `HistoryOpening.waitAtExit` to end, so what
    /// waited in memory is written rather than lost; one that does not end (a card that stopped
    /// answering) is left behind, and the rows are said to be lost.
    func finishHistoryOpeningAtExit() -> HistoryReopening? {
        guard let job = historyOpening, var reopening = historyReopening else { return historyReopening }
        guard job.wait(upTo: HistoryOpening.waitAtExit) else {
            logger.log(.error, "history: opening \(reopening.path) did not end within \(HistoryOpening.waitAtExit) of exit")
            job.abandon()
            return reopening
        }
        guard case let .success(opened)? = job.finish()?.result else { return reopening }
        sayHowItOpened(opened)
        let rows = reopening.replay(into: opened)
        for jump in clockStepsNotApplied {
            do { _ = try opened.redate(jump) } catch { logger.log(.error, "history: re-dating after the clock was set failed at exit: \(error)") }
        }
        if case let .failed(error, pending, _) = opened.commit() {
            logger.log(.error, "history: opened \(reopening.path) at exit, but \(pending) rows could not be written: \(error)")
        } else {
            logger.log(.notice, "history: opened \(reopening.path) at exit; \(rows) rows that waited in memory are written")
        }
        return nil
    }

    /// The log line for how the history was found: created, opened, or corrupt and moved aside.
    private func sayHowItOpened(_ history: HistoryStore) {
        switch history.outcome {
        case let .recreatedAfterCorruption(movedTo, reason):
            logger.log(.error, "history: \(history.path) was corrupt (\(reason)); moved to \(movedTo), a fresh history is started")
        case .created:
            logger.log(.notice, "history: created \(history.path)")
        case let .opened(version):
            logger.log(.info, "history: \(history.path) (schema \(version))")
        }
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
        sayHowItOpened(history)
        if case .recreatedAfterCorruption = history.outcome {
            lost(.corruptHistory, at: now)
            stored(.history, false, at: now)
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
