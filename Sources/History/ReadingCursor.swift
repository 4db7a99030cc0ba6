import Clocks
import Readings

/// Readings streamed from the history one row at a time, in constant memory (a year of 1 Hz
/// heart rate is ~30 million rows; an exporter must never hold them all).
///
/// A `Sequence` cannot throw, so a failure mid-way (an I/O error, a malformed row) ends the
/// iteration and is kept in `error`: an exporter checks it after the loop and reports an
/// incomplete export rather than a short one that looks whole.
public final class ReadingCursor: Sequence, IteratorProtocol {
    private let statement: SQLite.Statement?
    private let deviceNames: [Int64: DeviceID]
    public private(set) var error: HistoryError?

    init(store: HistoryStore, query: HistoryQuery) {
        var names: [Int64: DeviceID] = [:]
        var statement: SQLite.Statement?
        do throws(SQLiteError) {
            let devices = try store.connection.prepare("SELECT id, name FROM devices")
            while try devices.step() { names[devices.int64(0)] = DeviceID(devices.text(1) ?? "") }
            // A statement of its own (not the cache): it stays open while the runner commits.
            let select = try store.connection.prepare("""
                SELECT id, device, kind, value, trend, detail, wall_time, sensor_time, origin FROM readings
                WHERE wall_time >= ?1 AND wall_time < ?2 AND (?3 IS NULL OR kind = ?3)
                    AND (?4 IS NULL OR device = (SELECT id FROM devices WHERE name = ?4))
                ORDER BY wall_time, id
                """)
            try select.bind(1, query.since?.microsecondsSinceEpoch ?? .min)
            try select.bind(2, query.until?.microsecondsSinceEpoch ?? .max)
            try select.bind(3, query.kind.map(ReadingColumns.code(of:)))
            try select.bind(4, query.device?.rawValue)
            statement = select
        } catch {
            self.error = .sqlite(error)
        }
        self.statement = statement
        self.deviceNames = names
    }

    public func next() -> RecordedReading? {
        guard error == nil, let statement else { return nil }
        do throws(SQLiteError) {
            guard try statement.step() else { return nil }
        } catch {
            self.error = .sqlite(error)
            return nil
        }
        let id = statement.int64(0)
        guard let device = deviceNames[statement.int64(1)] else {
            error = .malformedRow(id: id, reason: "no device with id \(statement.int64(1))")
            return nil
        }
        let columns = ReadingColumns(kindCode: statement.int64(2), value: statement.double(3),
                                     trend: statement.text(4), detail: statement.text(5))
        switch columns.readingValue() {
        case let .success(value):
            return RecordedReading(device: device, value: value,
                                   wallTime: WallClockTime(microsecondsSinceEpoch: statement.int64(6)),
                                   sensorTime: statement.optionalInt64(7),
                                   origin: statement.int64(8) == 1 ? .backfill : .live)
        case let .failure(reason):
            error = .malformedRow(id: id, reason: reason.description)
            return nil
        }
    }
}
