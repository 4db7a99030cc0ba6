#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Alarms
import Clocks
import CSQLite
import Platform
import Readings

/// The rolling history: readings, alarm events, calibrations and devices in one
/// SQLite file on the SD card.
///
/// Durability: WAL with `synchronous=NORMAL`. In WAL mode a commit appends to the -wal file and
/// NORMAL syncs only at checkpoints, so a power cut can lose the last transactions that were
/// not yet synced, but never corrupts the file (the WAL's checksummed frames are replayed up to
/// the last complete commit; https://www.sqlite.org/pragma.html#pragma_synchronous). A process
/// crash (kill -9) loses nothing committed: the frames are in the OS page cache. FULL would
/// fsync the SD card on every event-loop turn, wearing it and blocking the loop for tens of
/// milliseconds. "Acknowledged" in this type means committed.
///
/// Writes are batched: `append` only buffers; `commit()` writes everything pending in one
/// transaction, and the runner calls it once per event-loop turn. When storage fails the rows
/// stay in memory (bounded by `pendingLimit`, oldest dropped and counted) and the next commit
/// retries, so writing resumes by itself when space returns.
public final class HistoryStore {
    /// How `open` found the file.
    public enum OpenOutcome: Equatable, Sendable {
        /// An existing history passed its check (and was migrated from `fromVersion` if older).
        case opened(fromVersion: Int)
        /// There was no file: a fresh one was created.
        case created
        /// The file was corrupt or not a database: it (and its -wal/-shm) was moved to
        /// `movedTo` and a fresh one created. The caller raises the storage fault.
        case recreatedAfterCorruption(movedTo: String, reason: String)
    }

    /// What `commit()` did.
    public enum CommitOutcome: Equatable, Sendable {
        case nothingPending
        /// `rows` new rows are durable (as WAL+NORMAL makes them); `duplicates` were already there.
        case committed(rows: Int, duplicates: Int)
        /// Nothing was written; `pending` rows wait in memory for the next commit, and `dropped`
        /// (since the last failed commit reported them) were discarded to bound memory.
        case failed(HistoryError, pending: Int, dropped: Int)
    }

    enum PendingRow {
        case reading(RecordedReading, received: MonotonicInstant?)
        case event(RecordedAlarmEvent, received: MonotonicInstant?)
        case calibration(Calibration, received: MonotonicInstant?)
        case device(DeviceRecord, updatedAt: WallClockTime?)
    }

    public let path: String
    public let bootID: String
    public let outcome: OpenOutcome
    /// Most rows kept in memory while storage fails (50,000 is about 14 hours of 1 Hz heart
    /// rate plus glucose, a few MB).
    public var pendingLimit: Int
    /// Rows kept in memory at most while they cannot be written (`pendingLimit`, `HistoryReopening`).
    public static let defaultPendingLimit = 50_000
    /// Bytes the -wal file is cut back to each time a checkpoint lets SQLite start it again
    /// (`PRAGMA journal_size_limit`).
    static let walSizeLimit = 4 * 1024 * 1024
    let connection: SQLite.Connection
    var pending: [PendingRow] = []
    /// Dropped since open, and since the last failed commit reported them.
    public private(set) var droppedTotal = 0
    var droppedUnreported = 0
    /// Row ids of devices and of this boot, cached; cleared when a transaction rolls back.
    var deviceIDs: [DeviceID: Int64] = [:]
    var bootRow: (id: Int64, firstReading: Int64)?
    /// Upload targets to write before the next rows (`registerUploadTargets`); nil once written.
    var pendingUploadTargets: Set<String>?

    /// Opens (or creates) the history at `path`, checks it, and migrates it.
    ///
    /// `bootID` names this boot (Linux: /proc/sys/kernel/random/boot_id) so re-dating touches
    /// only rows received since the clock last jumped in this boot; `now` names a corrupt file
    /// moved aside. `fullCheck` runs `integrity_check` instead of `quick_check` (see `check`).
    public static func open(path: String, bootID: String = HistoryStore.currentBootID(),
                            now: WallClockTime = SystemClock.wallNow(), fullCheck: Bool = false,
                            pendingLimit: Int = HistoryStore.defaultPendingLimit) throws(HistoryError) -> HistoryStore {
        let existed = FileSystem.exists(path: path)
        do {
            let connection = try prepare(path: path, fullCheck: fullCheck)
            let migration = try HistorySchema.migrate(connection)
            return HistoryStore(path: path, bootID: bootID, connection: connection, pendingLimit: pendingLimit,
                                outcome: existed && migration.from > 0 ? .opened(fromVersion: migration.from) : .created)
        } catch let error {
            guard case let .sqlite(sqliteError) = error, sqliteError.isCorruption else { throw error }
            let movedTo = try moveAside(path: path, now: now)
            let connection: SQLite.Connection
            do { connection = try prepare(path: path, fullCheck: false) } catch { throw error }
            _ = try HistorySchema.migrate(connection)
            return HistoryStore(path: path, bootID: bootID, connection: connection, pendingLimit: pendingLimit,
                                outcome: .recreatedAfterCorruption(movedTo: movedTo, reason: sqliteError.message))
        }
    }

    /// Opens an existing history only to read it, beside the appliance that writes it: `vigil
    /// export`, `vigil report`, and the button's USB export on its own thread. Read-only, with
    /// no check, no migration and no moving aside: a second opener that moved a file it found
    /// corrupt would leave the running appliance writing into the moved file, and its next
    /// start would find an empty history and raise nothing. A corrupt page met while reading
    /// is an error of the read instead.
    public static func openForReading(path: String) throws(HistoryError) -> HistoryStore {
        let connection: SQLite.Connection
        let version: Int
        do throws(SQLiteError) {
            connection = try SQLite.Connection(path: path, readOnly: true)
            try connection.execute("PRAGMA cache_size = -512")
            version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        } catch { throw .sqlite(error) }
        if version > HistorySchema.currentVersion { throw .newerSchema(found: version, newestKnown: HistorySchema.currentVersion) }
        if version < HistorySchema.currentVersion { throw .olderSchema(found: version, current: HistorySchema.currentVersion) }
        return HistoryStore(path: path, bootID: "reader", connection: connection, pendingLimit: defaultPendingLimit,
                            outcome: .opened(fromVersion: version))
    }

    init(path: String, bootID: String, connection: SQLite.Connection, pendingLimit: Int, outcome: OpenOutcome) {
        self.path = path
        self.bootID = bootID
        self.connection = connection
        self.pendingLimit = pendingLimit
        self.outcome = outcome
    }

    /// Opens the connection, sets it up and checks it. A failed check throws SQLITE_CORRUPT.
    private static func prepare(path: String, fullCheck: Bool) throws(HistoryError) -> SQLite.Connection {
        do throws(SQLiteError) {
            let connection = try SQLite.Connection(path: path)
            // Must precede the first table: auto_vacuum can only be chosen for an empty file.
            if try connection.scalarInt("PRAGMA page_count") == 0 {
                try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
            }
            let mode = try connection.scalarText("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN, message: "journal_mode is \(mode ?? "unknown"), not wal", operation: "PRAGMA journal_mode = WAL")
            }
            try connection.execute("PRAGMA synchronous = NORMAL")
            // SQLite reuses the -wal file from its start after a checkpoint but never shrinks
            // it: a burst (a long export holding a read while the runner commits, a prune of a
            // year) left it at its largest for good, on a card that also holds the history.
            // With a limit, each reset truncates it back to 4 MiB (1000 pages, the
            // auto-checkpoint point, is 4 MiB at the 4 KiB page size).
            try connection.execute("PRAGMA journal_size_limit = \(walSizeLimit)")
            // 512 KiB of page cache instead of SQLite's 2 MiB: the appliance appends a few rows
            // a turn and reads back only for exports, and resident memory is a figure of its own
            // (under 10 MB for `vigil run`, see `vigil-bench resident`): the default cache grew
            // vigil run by ~2 MiB under a fast heart rate.
            try connection.execute("PRAGMA cache_size = -512")
            let verdict = try check(connection, full: fullCheck)
            guard verdict == "ok" else {
                throw SQLiteError(code: SQLITE_CORRUPT, extendedCode: SQLITE_CORRUPT, message: "integrity check: \(verdict)", operation: fullCheck ? "PRAGMA integrity_check" : "PRAGMA quick_check")
            }
            return connection
        } catch { throw .sqlite(error) }
    }

    /// `PRAGMA quick_check` or, with `full`, `PRAGMA integrity_check`: "ok", or the first problems.
    ///
    /// Open runs quick_check by default: it verifies every page, record and freelist (what a
    /// torn write or a bad SD block damages) in time linear in the file, but skips checking
    /// that each index matches its table, which integrity_check does at O(N log N). Measured by
    /// `vigil-bench history` on a 56 MiB file (a year of glucose and a week of 1 Hz heart rate,
    /// x86 dev machine, release): quick_check 0.19 s, integrity_check 0.81 s. With the standard
    /// retention (30 days of heart rate, ~210 MiB) and a Pi Zero 2 W several times slower, the
    /// full check would hold the start-up for tens of seconds, before any alarm can sound; the
    /// quick check stays within seconds and catches what a power cut or a bad card does.
    static func check(_ connection: SQLite.Connection, full: Bool) throws(SQLiteError) -> String {
        let statement = try connection.prepare(full ? "PRAGMA integrity_check(10)" : "PRAGMA quick_check(10)")
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0) ?? "") }
        return lines.joined(separator: "; ")
    }

    /// Runs the check on the open store: "ok", or what is wrong.
    public func check(full: Bool) throws(HistoryError) -> String {
        do { return try Self.check(connection, full: full) } catch { throw .sqlite(error) }
    }

    /// Renames `path` and its -wal and -shm to `<path>.corrupt-<UTC time>`, keeping the
    /// evidence for a person to look at, and clearing the way for a fresh file.
    static func moveAside(path: String, now: WallClockTime) throws(HistoryError) -> String {
        let stamp = now.iso8601.filter { $0 != "-" && $0 != ":" }.prefix { $0 != "." } + "Z"
        var target = "\(path).corrupt-\(stamp)"
        var attempt = 1
        while FileSystem.exists(path: target) {
            attempt += 1
            target = "\(path).corrupt-\(stamp)-\(attempt)"
        }
        // The -wal first: were we to crash in between, a new file must not replay the old WAL.
        for suffix in ["-wal", "-shm", ""] where FileSystem.exists(path: path + suffix) {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw .cannotMoveAside(path: path + suffix, errno: errno)
            }
        }
        return target
    }

    /// This boot's id (/proc/sys/kernel/random/boot_id), or "unknown" where there is none.
    public static func currentBootID() -> String {
        guard let bytes = try? FileSystem.readFile(path: "/proc/sys/kernel/random/boot_id") else { return "unknown" }
        return String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    }

    // MARK: - Buffered writes

    /// Buffers readings for the next `commit()`. `receivedAt` is the monotonic instant they
    /// were received (for re-dating if the wall clock jumps later).
    public func append(_ readings: [RecordedReading], receivedAt: MonotonicInstant? = nil) {
        buffer(readings.map { .reading($0, received: receivedAt) })
    }

    /// Buffers alarm events for the next `commit()`, dated on the wall clock.
    public func append(_ events: [AlarmEvent], monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        buffer(events.map { .event(RecordedAlarmEvent($0, monotonicNow: monotonicNow, wallNow: wallNow), received: $0.time) })
    }

    /// Buffers events already dated on the wall clock (imports, tests).
    public func append(_ events: [RecordedAlarmEvent], receivedAt: MonotonicInstant? = nil) {
        buffer(events.map { .event($0, received: receivedAt) })
    }

    public func append(_ calibration: Calibration, receivedAt: MonotonicInstant? = nil) {
        buffer([.calibration(calibration, received: receivedAt)])
    }

    /// Records a device and its remembered state (replacing what was remembered).
    public func remember(_ device: DeviceRecord, at wallTime: WallClockTime? = nil) {
        buffer([.device(device, updatedAt: wallTime)])
    }

    public var pendingCount: Int { pending.count }

    private func buffer(_ rows: [PendingRow]) {
        pending += rows
        let excess = pending.count - pendingLimit
        if excess > 0 {
            // Oldest first: the newest readings are what the alarms and a clinician need most.
            pending.removeFirst(excess)
            droppedTotal += excess
            droppedUnreported += excess
        }
    }

    /// Writes everything pending in one transaction. Never throws: a failure is reported so
    /// the caller raises the storage fault, and the rows wait for the next call.
    @discardableResult
    public func commit() -> CommitOutcome {
        guard !pending.isEmpty || pendingUploadTargets != nil else { return .nothingPending }
        var inserted = 0
        let targets = pendingUploadTargets
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            // Before the rows: they are queued for the targets active when they are stored.
            try writeUploadTargets()
            for row in pending { inserted += try insert(row) }
            try connection.execute("COMMIT")
        } catch {
            rollBack()
            pendingUploadTargets = targets
            let dropped = droppedUnreported
            droppedUnreported = 0
            return .failed(.sqlite(error), pending: pending.count, dropped: dropped)
        }
        let total = pending.count
        pending.removeAll(keepingCapacity: pending.count < 4096)
        return .committed(rows: inserted, duplicates: total - inserted)
    }

    /// Ends a failed transaction and forgets row ids it may have created.
    func rollBack() {
        if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
        deviceIDs.removeAll()
        bootRow = nil
    }

    /// Inserts one row; 1 if it was new, 0 if the uniqueness rule skipped it.
    private func insert(_ row: PendingRow) throws(SQLiteError) -> Int {
        switch row {
        case let .reading(reading, received):
            let columns = ReadingColumns(reading.value)
            let device = try deviceRow(reading.device)
            switch try SameReading.verdict(device: device, kindCode: columns.kindCode, value: columns.value,
                                           wallTime: reading.wallTime.microsecondsSinceEpoch, stamp: reading.sensorStamp, in: connection) {
            case .new:
                break
            case .duplicate:
                return 0
            case let .adopts(rowID):
                if let stamp = reading.sensorStamp { try SameReading.adopt(stamp, row: rowID, in: connection) }
                return 0
            }
            let statement = try connection.cached("""
                INSERT INTO readings (device, kind, value, trend, detail, wall_time, sensor_time, sensor_run, origin, boot, received)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            try statement.bind(1, device)
            try statement.bind(2, columns.kindCode)
            try statement.bind(3, columns.value)
            try statement.bind(4, columns.trend)
            try statement.bind(5, columns.detail)
            try statement.bind(6, reading.wallTime.microsecondsSinceEpoch)
            try statement.bind(7, reading.sensorStamp?.count)
            try statement.bind(8, reading.sensorStamp?.run)
            try statement.bind(9, reading.origin.storedCode)
            try statement.bind(10, received == nil ? nil : try boot().id)
            try statement.bind(11, received?.nanoseconds)
            try statement.run()
        case let .event(event, received):
            let statement = try connection.cached("""
                INSERT INTO alarm_events (kind, change, priority, until, wall_time, boot, received)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            try statement.bind(1, event.kind.name)
            try statement.bind(2, event.change.name)
            try statement.bind(3, Int64(event.priority.rawValue))
            try statement.bind(4, event.change.until?.microsecondsSinceEpoch)
            try statement.bind(5, event.wallTime.microsecondsSinceEpoch)
            try statement.bind(6, received == nil ? nil : try boot().id)
            try statement.bind(7, received?.nanoseconds)
            try statement.run()
        case let .calibration(calibration, received):
            let statement = try connection.cached("""
                INSERT INTO calibrations (device, glucose, wall_time, boot, received)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            try statement.bind(1, try deviceRow(calibration.device))
            try statement.bind(2, calibration.glucose.milligramsPerDeciliter)
            try statement.bind(3, calibration.wallTime.microsecondsSinceEpoch)
            try statement.bind(4, received == nil ? nil : try boot().id)
            try statement.bind(5, received?.nanoseconds)
            try statement.run()
        case let .device(device, updatedAt):
            let statement = try connection.cached("""
                INSERT INTO devices (name, type, address, state, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET type = excluded.type, address = excluded.address,
                    state = excluded.state, updated_at = excluded.updated_at
                """)
            try statement.bind(1, device.id.rawValue)
            try statement.bind(2, device.type)
            try statement.bind(3, device.address)
            try statement.bind(4, device.state)
            try statement.bind(5, updatedAt?.microsecondsSinceEpoch)
            try statement.run()
        }
        return connection.changes
    }

    /// The row id of `device` in `devices`, creating a bare row the first time it is seen.
    func deviceRow(_ device: DeviceID) throws(SQLiteError) -> Int64 {
        if let id = deviceIDs[device] { return id }
        let insert = try connection.cached("INSERT INTO devices (name) VALUES (?) ON CONFLICT (name) DO NOTHING")
        try insert.bind(1, device.rawValue)
        try insert.run()
        let select = try connection.cached("SELECT id FROM devices WHERE name = ?")
        try select.bind(1, device.rawValue)
        defer { select.reset() }
        guard try select.step() else {
            throw SQLiteError(code: SQLITE_INTERNAL, extendedCode: SQLITE_INTERNAL, message: "device \(device) vanished", operation: "SELECT id FROM devices")
        }
        let id = select.int64(0)
        deviceIDs[device] = id
        return id
    }

    /// This boot's row in `boots`, created on first use (inside the caller's transaction).
    func boot() throws(SQLiteError) -> (id: Int64, firstReading: Int64) {
        if let bootRow { return bootRow }
        let insert = try connection.cached("""
            INSERT INTO boots (boot_id, first_reading) VALUES (?, (SELECT IFNULL(MAX(id), 0) + 1 FROM readings))
            ON CONFLICT (boot_id) DO NOTHING
            """)
        try insert.bind(1, bootID)
        try insert.run()
        let select = try connection.cached("SELECT id, first_reading FROM boots WHERE boot_id = ?")
        try select.bind(1, bootID)
        defer { select.reset() }
        guard try select.step() else {
            throw SQLiteError(code: SQLITE_INTERNAL, extendedCode: SQLITE_INTERNAL, message: "boot \(bootID) vanished", operation: "SELECT FROM boots")
        }
        let row = (select.int64(0), select.int64(1))
        bootRow = row
        return row
    }
}
