import Clocks
import Readings

/// Readings streamed from the history one row at a time, in constant memory (a year of 1 Hz
/// heart rate is ~30 million rows; an exporter must never hold them all).
///
/// A `Sequence` cannot throw, so a failure mid-way (an I/O error, a malformed row) ends the
/// iteration and is kept in `error`: an exporter checks it after the loop and reports an
/// incomplete export rather than a short one that looks whole.
///
/// Its statement holds a read snapshot until the cursor goes: a reader that keeps one across
/// the appliance's turns keeps every WAL checkpoint from resetting the log, which then grows
/// by each commit. One that reads in pages over time takes `position` after each page and
/// starts the next cursor `after` it (`HistoryStore.readings(_:after:)`).
public final class ReadingCursor: Sequence, IteratorProtocol {
    private let statement: SQLite.Statement?
    private let deviceNames: [Int64: DeviceID]
    public private(set) var error: HistoryError?
    /// Where the last reading returned sits in the order (nil before the first).
    public private(set) var position: ReadingPosition?

    init(store: HistoryStore, query: HistoryQuery, after start: ReadingPosition? = nil) {
        var names: [Int64: DeviceID] = [:]
        var statement: SQLite.Statement?
        do throws(SQLiteError) {
            let devices = try store.connection.prepare("SELECT id, name FROM devices")
            while try devices.step() { names[devices.int64(0)] = DeviceID(devices.text(1) ?? "") }
            // A statement of its own (not the cache): it stays open while the runner commits.
            let select = try store.connection.prepare(Self.select(oneKind: query.kind != nil))
            // After `start`: from its wall time on (the index's range), past its id at that time.
            try select.bind(1, Swift.max(query.since?.microsecondsSinceEpoch ?? .min, start?.wallTime ?? .min))
            try select.bind(2, query.until?.microsecondsSinceEpoch ?? .max)
            try select.bind(3, query.kind.map(ReadingColumns.code(of:)))
            try select.bind(4, query.device?.rawValue)
            try select.bind(5, start?.wallTime)
            try select.bind(6, start?.id)
            statement = select
        } catch {
            self.error = .sqlite(error)
        }
        self.statement = statement
        self.deviceNames = names
    }

    /// The query behind a cursor. One kind is `kind = ?3` itself, not `(?3 IS NULL OR
    /// kind = ?3)`: SQLite plans before it binds, and only the plain equality lets it search
    /// readings_by_kind_wall_time rather than every row of every kind in the window.
    static func select(oneKind: Bool) -> String {
        """
        SELECT id, device, kind, value, trend, detail, wall_time, sensor_time, origin, sensor_run FROM readings
        WHERE wall_time >= ?1 AND wall_time < ?2 AND \(oneKind ? "kind = ?3" : "?3 IS NULL")
            AND (?4 IS NULL OR device = (SELECT id FROM devices WHERE name = ?4))
            AND (?5 IS NULL OR wall_time > ?5 OR id > ?6)
        ORDER BY wall_time, id
        """
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
            position = ReadingPosition(wallTime: statement.int64(6), id: id)
            return RecordedReading(device: device, value: value,
                                   wallTime: WallClockTime(microsecondsSinceEpoch: statement.int64(6)),
                                   sensorStamp: statement.optionalInt64(7).map { SensorStamp(run: statement.text(9) ?? "", count: $0) },
                                   origin: RecordedReading.Origin(storedCode: statement.int64(8)))
        case let .failure(reason):
            error = .malformedRow(id: id, reason: reason.description)
            return nil
        }
    }
}

/// A reading's place in the history's order (wall time, then row id): where a page ended, so
/// the next starts right after it however many rows came in since.
public struct ReadingPosition: Hashable, Sendable {
    let wallTime: Int64
    let id: Int64
}
