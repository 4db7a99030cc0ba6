import Clocks
import CSQLite
import Readings

/// When a reading about to be stored is one the history already holds (docs/reading-identity.md).
///
/// 1. A reading with a `SensorStamp` is the row with the same device, kind and stamp: the
///    unique index `readings_unique_sensor_stamp` says so, whatever the two wall times.
/// 2. Sensor glucose has a second rule, for rows stored without a stamp (by a version before 5,
///    or from a source that has none, the G4 through an xBridge): the same device and value
///    within `Reading.sameReadingWindow` (30 s) of each other is one reading. A CGM measures at most once a minute, and
///    the same reading estimated twice from the transmitter's clock lands milliseconds to a
///    second apart; two real readings 30 s apart do not exist. A stamped reading that meets
///    such an unstamped row *adopts* it: the row (the first one stored) keeps its place and
///    gains the stamp, so the reading after an upgrade is not stored a second time.
/// 3. Everything else keeps the exact rule of the unique index on wall time and value (a heart
///    rate repeats its value every second; only the same notification stored twice is one).
///
/// The version 5 migration folds what earlier versions stored with the same rule, row by row
/// in the order they were stored: the first is kept.
enum SameReading {
    static let glucoseKind = ReadingColumns.code(of: .glucose)

    enum Verdict: Equatable {
        case new
        case duplicate
        /// The unstamped row `rowID` is this reading: give it the stamp.
        case adopts(rowID: Int64)
    }

    /// What rule 1 or 2 says of a reading against the rows stored before row `before`
    /// (nil: all of them).
    static func verdict(device: Int64, kindCode: Int64, value: Double, wallTime: Int64, stamp: SensorStamp?,
                        before: Int64? = nil, in connection: SQLite.Connection) throws(SQLiteError) -> Verdict {
        if let stamp {
            let exact = try connection.cached("""
                SELECT 1 FROM readings WHERE device = ?1 AND kind = ?2 AND ifnull(sensor_run, '') = ?3 AND sensor_time = ?4 AND id < ?5
                """)
            try exact.bind(1, device)
            try exact.bind(2, kindCode)
            try exact.bind(3, stamp.run)
            try exact.bind(4, stamp.count)
            try exact.bind(5, before ?? .max)
            defer { exact.reset() }
            if try exact.step() { return .duplicate }
        }
        guard kindCode == glucoseKind else { return .new }
        let window = Reading.sameReadingWindow.nanosecondsClamped / 1000
        // Unstamped rows first: a stamped reading may adopt only one of those; a stamped row
        // with another stamp is another reading the sensor made.
        let near = try connection.cached("""
            SELECT id, sensor_time IS NOT NULL FROM readings
            WHERE kind = ?1 AND wall_time BETWEEN ?2 AND ?3 AND device = ?4 AND value = ?5 AND id < ?6
            ORDER BY sensor_time IS NOT NULL, id LIMIT 1
            """)
        try near.bind(1, kindCode)
        try near.bind(2, wallTime - window)
        try near.bind(3, wallTime + window)
        try near.bind(4, device)
        try near.bind(5, value)
        try near.bind(6, before ?? .max)
        defer { near.reset() }
        guard try near.step() else { return .new }
        let (id, stamped) = (near.int64(0), near.int64(1) == 1)
        guard stamp != nil else { return .duplicate }
        return stamped ? .new : .adopts(rowID: id)
    }

    /// Gives the unstamped row `id` the stamp of the reading it turned out to be.
    static func adopt(_ stamp: SensorStamp, row id: Int64, in connection: SQLite.Connection) throws(SQLiteError) {
        let update = try connection.cached("UPDATE readings SET sensor_time = ?1, sensor_run = ?2 WHERE id = ?3 AND sensor_time IS NULL")
        try update.bind(1, stamp.count)
        try update.bind(2, stamp.run)
        try update.bind(3, id)
        try update.run()
    }

    /// The version 5 fold: every sensor-glucose row, in the order stored, judged against the
    /// rows stored before it that are still there; duplicates are deleted (their stamp, if
    /// any, going to the row they repeat).
    static let foldDuplicates: @Sendable (SQLite.Connection) throws(SQLiteError) -> Void = { connection throws(SQLiteError) in
        var rows: [(id: Int64, device: Int64, value: Double, wallTime: Int64, stamp: SensorStamp?)] = []
        let select = try connection.prepare("""
            SELECT id, device, value, wall_time, sensor_time, sensor_run FROM readings WHERE kind = \(glucoseKind) ORDER BY id
            """)
        while try select.step() {
            let stamp = select.optionalInt64(4).map { SensorStamp(run: select.text(5) ?? "", count: $0) }
            rows.append((select.int64(0), select.int64(1), select.double(2), select.int64(3), stamp))
        }
        let delete = try connection.prepare("DELETE FROM readings WHERE id = ?1")
        for row in rows {
            let verdict = try verdict(device: row.device, kindCode: glucoseKind, value: row.value, wallTime: row.wallTime,
                                      stamp: row.stamp, before: row.id, in: connection)
            guard verdict != .new else { continue }
            try delete.bind(1, row.id)
            try delete.run()
            delete.reset()
            if case let .adopts(target) = verdict, let stamp = row.stamp { try adopt(stamp, row: target, in: connection) }
        }
    }
}
