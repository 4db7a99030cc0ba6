import Clocks
import Readings

extension HistoryStore {
    /// Re-dates everything received in this boot at or before `jump.monotonic` by
    /// `jump.shift`: committed rows in one transaction, and rows still pending in memory.
    ///
    /// Only rows with a reception instant and this boot's id move: rows from earlier boots were
    /// dated by a clock we know nothing about now, and a monotonic instant means nothing across
    /// a reboot. Idempotent per (boot, instant): a runner that retries after a crash does not
    /// shift twice. Returns the number of rows shifted.
    @discardableResult
    public func redate(_ jump: ClockJump) throws(HistoryError) -> Int {
        let shift = jump.shift.nanosecondsClamped / 1000
        guard shift != 0 else { return 0 }
        var shifted = 0
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                let boot = try boot()
                let seen = try connection.cached("SELECT EXISTS (SELECT 1 FROM clock_jumps WHERE boot = ? AND monotonic = ?)")
                try seen.bind(1, boot.id)
                try seen.bind(2, jump.monotonic.nanoseconds)
                let already = try seen.step() && seen.int64(0) == 1
                seen.reset()
                if already {
                    try connection.execute("ROLLBACK")
                    return 0
                }
                // OR REPLACE: a re-dated reading landing exactly on an existing one of the same
                // device, kind and microsecond is the same reading seen twice.
                for (table, floor) in [("readings", boot.firstReading), ("alarm_events", 0), ("calibrations", 0)] {
                    // An alarm event's snooze or acknowledgement end was dated on the same clock.
                    let until = table == "alarm_events" ? ", until = until + ?1" : ""
                    let update = try connection.cached("""
                        UPDATE OR REPLACE \(table) SET wall_time = wall_time + ?1\(until)
                        WHERE id >= ?2 AND boot = ?3 AND received <= ?4
                        """)
                    try update.bind(1, shift)
                    try update.bind(2, floor)
                    try update.bind(3, boot.id)
                    try update.bind(4, jump.monotonic.nanoseconds)
                    try update.run()
                    shifted += connection.changes
                }
                let record = try connection.cached("INSERT INTO clock_jumps (boot, monotonic, shift) VALUES (?, ?, ?)")
                try record.bind(1, boot.id)
                try record.bind(2, jump.monotonic.nanoseconds)
                try record.bind(3, shift)
                try record.run()
                try connection.execute("COMMIT")
            } catch {
                rollBack()
                throw error
            }
        } catch { throw .sqlite(error) }
        shifted += redatePending(jump)
        return shifted
    }

    /// Shifts rows not yet committed that were received at or before the jump.
    private func redatePending(_ jump: ClockJump) -> Int {
        var shifted = 0
        func moved(_ received: MonotonicInstant?) -> Bool {
            guard let received, received <= jump.monotonic else { return false }
            shifted += 1
            return true
        }
        for index in pending.indices {
            switch pending[index] {
            case .reading(var reading, let received) where moved(received):
                reading.wallTime = reading.wallTime + jump.shift
                pending[index] = .reading(reading, received: received)
            case .event(var event, let received) where moved(received):
                event.wallTime = event.wallTime + jump.shift
                event.change = switch event.change {
                case let .snoozed(until): .snoozed(until: until + jump.shift)
                case let .acknowledged(until): .acknowledged(until: until + jump.shift)
                case let other: other
                }
                pending[index] = .event(event, received: received)
            case .calibration(var calibration, let received) where moved(received):
                calibration.wallTime = calibration.wallTime + jump.shift
                pending[index] = .calibration(calibration, received: received)
            default:
                break
            }
        }
        return shifted
    }
}
