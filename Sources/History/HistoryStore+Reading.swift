import Alarms
import Clocks
import Readings

extension HistoryStore {
    /// Committed readings matching `query`, ordered by wall time, streamed in constant memory.
    /// Rows still pending (not yet committed) are not included.
    public func readings(_ query: HistoryQuery = .everything) -> ReadingCursor {
        ReadingCursor(store: self, query: query)
    }

    /// The readings of `query` that come after `position` (a cursor's, when its page ended):
    /// a page at a time with no statement, and so no read snapshot, kept in between.
    public func readings(_ query: HistoryQuery, after position: ReadingPosition?) -> ReadingCursor {
        ReadingCursor(store: self, query: query, after: position)
    }

    /// Committed alarm events in [since, until), ordered by wall time. (Events are few: a
    /// bad night raises dozens, not thousands, so an array is fine here.)
    public func alarmEvents(since: WallClockTime? = nil, until: WallClockTime? = nil) throws(HistoryError) -> [RecordedAlarmEvent] {
        var rows: [(id: Int64, kind: String, change: String, priority: Int64, until: Int64?, wallTime: Int64)] = []
        do throws(SQLiteError) {
            let select = try connection.cached("""
                SELECT id, kind, change, priority, until, wall_time FROM alarm_events
                WHERE wall_time >= ? AND wall_time < ? ORDER BY wall_time, id
                """)
            try select.bind(1, since?.microsecondsSinceEpoch ?? .min)
            try select.bind(2, until?.microsecondsSinceEpoch ?? .max)
            defer { select.reset() }
            while try select.step() {
                rows.append((select.int64(0), select.text(1) ?? "", select.text(2) ?? "", select.int64(3), select.optionalInt64(4), select.int64(5)))
            }
        } catch { throw .sqlite(error) }
        var events: [RecordedAlarmEvent] = []
        for row in rows {
            guard let kind = AlarmKind(name: row.kind) else { throw .malformedRow(id: row.id, reason: "unknown alarm kind \"\(row.kind)\"") }
            guard let change = RecordedAlarmEvent.Change(name: row.change, priority: row.priority, until: row.until) else {
                throw .malformedRow(id: row.id, reason: "bad alarm change \"\(row.change)\"")
            }
            events.append(RecordedAlarmEvent(kind: kind, change: change, wallTime: WallClockTime(microsecondsSinceEpoch: row.wallTime)))
        }
        return events
    }

    /// Committed calibrations in [since, until), ordered by wall time.
    public func calibrations(since: WallClockTime? = nil, until: WallClockTime? = nil) throws(HistoryError) -> [Calibration] {
        var result: [Calibration] = []
        do throws(SQLiteError) {
            let select = try connection.cached("""
                SELECT d.name, c.glucose, c.wall_time FROM calibrations c JOIN devices d ON d.id = c.device
                WHERE c.wall_time >= ? AND c.wall_time < ? ORDER BY c.wall_time, c.id
                """)
            try select.bind(1, since?.microsecondsSinceEpoch ?? .min)
            try select.bind(2, until?.microsecondsSinceEpoch ?? .max)
            defer { select.reset() }
            while try select.step() {
                result.append(Calibration(device: DeviceID(select.text(0) ?? ""),
                                          glucose: GlucoseConcentration(milligramsPerDeciliter: select.double(1)),
                                          wallTime: WallClockTime(microsecondsSinceEpoch: select.int64(2))))
            }
        } catch { throw .sqlite(error) }
        return result
    }

    /// Every device remembered with `remember(_:)` (devices only seen in readings have no type
    /// and are left out).
    public func devices() throws(HistoryError) -> [DeviceRecord] {
        var result: [DeviceRecord] = []
        do throws(SQLiteError) {
            let select = try connection.cached("SELECT name, type, address, state FROM devices WHERE type IS NOT NULL ORDER BY name")
            defer { select.reset() }
            while try select.step() {
                result.append(DeviceRecord(id: DeviceID(select.text(0) ?? ""), type: select.text(1) ?? "",
                                           address: select.text(2), state: select.text(3)))
            }
        } catch { throw .sqlite(error) }
        return result
    }

    /// Row counts and size, for status displays.
    public func counts() throws(HistoryError) -> HistoryCounts {
        do throws(SQLiteError) {
            var readings: [Reading.Kind: Int] = [:]
            // Kept by triggers (schema version 4): reading every row took 0.27 s for 700,000.
            let select = try connection.cached("SELECT kind, count FROM reading_counts WHERE count > 0")
            defer { select.reset() }
            while try select.step() {
                if let kind = ReadingColumns.kind(ofCode: select.int64(0)) { readings[kind] = Int(select.int64(1)) }
            }
            return HistoryCounts(
                readings: readings,
                alarmEvents: Int(try connection.scalarInt("SELECT COUNT(*) FROM alarm_events") ?? 0),
                calibrations: Int(try connection.scalarInt("SELECT COUNT(*) FROM calibrations") ?? 0),
                devices: Int(try connection.scalarInt("SELECT COUNT(*) FROM devices") ?? 0),
                pending: pendingCount,
                dropped: droppedTotal,
                usedBytes: try usedBytes())
        } catch { throw .sqlite(error) }
    }

    /// Bytes of the main file holding data: (pages - free pages) × page size.
    func usedBytes() throws(SQLiteError) -> Int {
        let pages = try connection.scalarInt("PRAGMA page_count") ?? 0
        let free = try connection.scalarInt("PRAGMA freelist_count") ?? 0
        let size = try connection.scalarInt("PRAGMA page_size") ?? 0
        return Int((pages - free) * size)
    }
}

extension HistoryStore {
    /// Copies the WAL into the main file and truncates it (`PRAGMA wal_checkpoint(TRUNCATE)`):
    /// before copying the file elsewhere, or to measure its size. SQLite checkpoints by itself
    /// every 1000 pages, so the runner need not call this.
    public func checkpoint() throws(HistoryError) {
        do { try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") } catch { throw .sqlite(error) }
    }
}
