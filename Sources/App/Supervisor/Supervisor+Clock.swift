import Clocks

/// The wall clock watched: a step is said in the log; a clock being set re-dates the rows the
/// unset clock dated; a step of a set clock is saved for retention.
extension Supervisor {
    /// Shows the watch a pair of clock readings taken together, and acts on a step. Every row
    /// is dated by a pair the watch saw first (`report`), so the rows of the old clock are
    /// exactly those received up to the pair before the step was seen: that pair is the
    /// re-date's cut-off. Cutting at the pair that saw the step moved the rows dated on the new
    /// clock in between a second time, decades ahead. Returns whether the clock stepped.
    @discardableResult
    mutating func watchClock(_ now: ClockReadings) -> Bool {
        if case .none = history { return false }
        let previous = clockWatchedAt ?? now.monotonic
        clockWatchedAt = max(now.monotonic, previous)
        guard let step = clockWatch.observe(monotonic: now.monotonic, wall: now.wall) else { return false }
        log(.notice, "the wall clock stepped by \(step.to - step.from)")
        nextClockCheck = now.monotonic  // a clock just set clears clock-not-set now, not within the minute
        if step.setsTheClock {
            clockSettingsNotApplied.append(ClockJump(monotonic: previous, from: step.from, to: step.to))
            applyClockSettings()
        } else {
            // Kept for the next run: a restart on a clock still a day ahead must not prune.
            save(.clockShift(clockWatch))
        }
        return true
    }

    /// Rows dated by the clock before it was set get the date it was set to, one setting at a
    /// time, once the history is open. A re-date that fails (the history refusing writes just
    /// then) is kept and tried again with the state files, every `saveRetryInterval`, and the
    /// storage fault stands meanwhile: those rows would otherwise keep dates decades old, and
    /// retention would delete them as expired.
    mutating func applyClockSettings() {
        guard historyIsOpen, !redating, let first = clockSettingsNotApplied.first else { return }
        redating = true
        actions.append(.redateHistory(first))
    }

    mutating func historyRedated(rows: Int, at now: MonotonicInstant) {
        if exiting { return }
        redating = false
        if !clockSettingsNotApplied.isEmpty { clockSettingsNotApplied.removeFirst() }
        log(.notice, "history: \(rows) rows dated before the clock was set were re-dated")
        if clockSettingsNotApplied.isEmpty {
            stored(.historyDates, true, at: now)
        } else {
            applyClockSettings()
        }
    }

    mutating func historyRedateFailed(_ error: String, at now: MonotonicInstant) {
        if exiting { return log(.error, "history: re-dating after the clock was set failed at exit: \(error)") }
        redating = false
        log(.error, "history: re-dating after the clock was set failed: \(error); tried again in \(configuration.retryInterval)")
        stored(.historyDates, false, at: now)
    }
}
