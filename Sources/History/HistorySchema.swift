/// The history's schema as an ordered list of migrations: the database's `PRAGMA user_version`
/// is how many of them have run. A migration is never edited once released; a change is a new
/// migration appended at the end, so a file from any earlier Vigil upgrades step by step.
enum HistorySchema {
    /// `migrations[i]` takes a database from version `i` to `i + 1`.
    static let migrations: [Migration] = [
        Migration(version1), Migration(version2), Migration(version3), Migration(version4),
        Migration(version5, then: SameReading.foldDuplicates), Migration(version6),
    ]

    /// A migration's SQL, and the work SQL alone cannot say well, run after it in the same
    /// transaction.
    struct Migration: Sendable {
        let sql: String
        let then: (@Sendable (SQLite.Connection) throws(SQLiteError) -> Void)?

        init(_ sql: String, then: (@Sendable (SQLite.Connection) throws(SQLiteError) -> Void)? = nil) {
            self.sql = sql
            self.then = then
        }

        func run(_ connection: SQLite.Connection) throws(SQLiteError) {
            try connection.execute(sql)
            try then?(connection)
        }
    }

    static var currentVersion: Int { migrations.count }

    /// Version 1: readings, devices, alarm events and calibrations, dated on the wall clock only.
    ///
    /// Uniqueness (backfill, retries and replays must never duplicate a reading): a reading
    /// with a transmitter timestamp is keyed by (device, kind, sensor_time), so a backfilled
    /// copy whose wall time was estimated differently is still the same reading; one without is
    /// keyed by (device, kind, wall_time). Two partial unique indexes express the rule, and
    /// every insert is `ON CONFLICT DO NOTHING`.
    static let version1 = """
        CREATE TABLE kinds (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL);
        INSERT INTO kinds VALUES (1, 'glucose', 'mg/dL'), (2, 'meter-glucose', 'mg/dL'),
            (3, 'heart-rate', 'bpm'), (4, 'rr-intervals', 'count; detail: 1/1024 s ticks'),
            (5, 'energy-expended', 'kJ'), (6, 'humidity', '%'), (7, 'temperature', 'degC'),
            (8, 'battery', '%');
        CREATE TABLE devices (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            type TEXT,
            address TEXT,
            state TEXT,
            updated_at INTEGER);
        CREATE TABLE readings (
            id INTEGER PRIMARY KEY,
            device INTEGER NOT NULL REFERENCES devices(id),
            kind INTEGER NOT NULL,
            value REAL NOT NULL,
            trend TEXT,
            detail TEXT,
            wall_time INTEGER NOT NULL,
            sensor_time INTEGER,
            origin INTEGER NOT NULL DEFAULT 0);
        CREATE UNIQUE INDEX readings_unique_sensor_time ON readings(device, kind, sensor_time) WHERE sensor_time IS NOT NULL;
        CREATE UNIQUE INDEX readings_unique_wall_time ON readings(device, kind, wall_time) WHERE sensor_time IS NULL;
        CREATE INDEX readings_by_wall_time ON readings(wall_time);
        CREATE TABLE alarm_events (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            change TEXT NOT NULL,
            priority INTEGER NOT NULL,
            until INTEGER,
            wall_time INTEGER NOT NULL);
        CREATE INDEX alarm_events_by_wall_time ON alarm_events(wall_time);
        CREATE TABLE calibrations (
            id INTEGER PRIMARY KEY,
            device INTEGER NOT NULL REFERENCES devices(id),
            glucose REAL NOT NULL,
            wall_time INTEGER NOT NULL,
            UNIQUE (device, wall_time));
        """

    /// Version 2: re-dating. A Raspberry Pi has no real-time clock, so rows remember the boot
    /// they were received in and the monotonic instant of reception (ns); `boots.first_reading`
    /// bounds the rowid range a re-dating scans, and `clock_jumps` makes re-dating idempotent.
    static let version2 = """
        CREATE TABLE boots (id INTEGER PRIMARY KEY, boot_id TEXT NOT NULL UNIQUE, first_reading INTEGER NOT NULL);
        ALTER TABLE readings ADD COLUMN boot INTEGER REFERENCES boots(id);
        ALTER TABLE readings ADD COLUMN received INTEGER;
        ALTER TABLE alarm_events ADD COLUMN boot INTEGER REFERENCES boots(id);
        ALTER TABLE alarm_events ADD COLUMN received INTEGER;
        ALTER TABLE calibrations ADD COLUMN boot INTEGER REFERENCES boots(id);
        ALTER TABLE calibrations ADD COLUMN received INTEGER;
        CREATE TABLE clock_jumps (
            boot INTEGER NOT NULL REFERENCES boots(id),
            monotonic INTEGER NOT NULL,
            shift INTEGER NOT NULL,
            PRIMARY KEY (boot, monotonic));
        """

    /// Version 3: a reading with no sensor time is a duplicate only when its value and detail
    /// are the same too. Readings that arrive in one read of the controller share one
    /// reception instant, so (device, kind, wall time) alone merged different heart-rate
    /// notifications (4.9 % of them at 700 a second in `vigil-bench resident`). A retry or a
    /// replay repeats the value as well, and is still kept once. NULL details compare equal
    /// through `ifnull` (a plain NULL is distinct from every other in a unique index).
    static let version3 = """
        DROP INDEX readings_unique_wall_time;
        CREATE UNIQUE INDEX readings_unique_wall_time_value
            ON readings(device, kind, wall_time, value, ifnull(trend, ''), ifnull(detail, '')) WHERE sensor_time IS NULL;
        """

    /// Version 4: what REPORT and STATUS ask, answered without reading every row. They run on
    /// the loop that sounds the alarms, and a week of 1 Hz heart rate is 60 times the rows of
    /// the glucose it shares its times with: 14 days of glucose went through the wall-time
    /// index over 600,000 heart-rate rows (0.15 s on the dev machine, ~10 times that on a Pi),
    /// and the counts per kind read all 700,000 (0.27 s; `vigil-bench history`).
    /// - `readings_by_kind_wall_time` serves a one-kind window (and pruning each kind by age).
    /// - `reading_counts` is kept by triggers in the same transaction as the rows, so it cannot
    ///   drift from them: an insert that hits a unique index (`ON CONFLICT DO NOTHING`) inserts
    ///   nothing and fires nothing. It starts from the rows the file already has.
    /// The cost, in the same benchmark: the file is 23 % bigger (63.6 to 78.2 MiB for those
    /// 709,920 rows; the index is ~21 bytes a row) and batched inserts 40 % slower (147,000 to
    /// 88,000 rows/s, still a year of glucose in 1.2 s). Both are cheap next to a loop that
    /// stalls for seconds on a Pi whenever someone asks for a report.
    static let version4 = """
        CREATE INDEX readings_by_kind_wall_time ON readings(kind, wall_time);
        CREATE TABLE reading_counts (kind INTEGER PRIMARY KEY, count INTEGER NOT NULL);
        INSERT INTO reading_counts SELECT kind, COUNT(*) FROM readings GROUP BY kind;
        CREATE TRIGGER readings_count_insert AFTER INSERT ON readings BEGIN
            INSERT INTO reading_counts VALUES (NEW.kind, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1;
        END;
        CREATE TRIGGER readings_count_delete AFTER DELETE ON readings BEGIN
            UPDATE reading_counts SET count = count - 1 WHERE kind = OLD.kind;
        END;
        CREATE TRIGGER readings_count_kind_change AFTER UPDATE OF kind ON readings WHEN OLD.kind IS NOT NEW.kind BEGIN
            UPDATE reading_counts SET count = count - 1 WHERE kind = OLD.kind;
            INSERT INTO reading_counts VALUES (NEW.kind, 1) ON CONFLICT (kind) DO UPDATE SET count = count + 1;
        END;
        """

    /// Version 5: a reading's identity is what the sensor says (docs/reading-identity.md). The
    /// stamp is the sensor's count (`sensor_time`, unused until now) within one run of its
    /// counter (`sensor_run`: the transmitter ID, the sensor's serial, ...): the same count from
    /// a new transmitter is a new reading. Then the duplicates earlier versions stored are
    /// folded by the rule every insert now follows (`SameReading`): a Dexcom re-read at each
    /// reconnection, and backfilled again after each restart, had been kept once per reading
    /// of it, with wall times a few milliseconds apart.
    static let version5 = """
        ALTER TABLE readings ADD COLUMN sensor_run TEXT;
        DROP INDEX readings_unique_sensor_time;
        CREATE UNIQUE INDEX readings_unique_sensor_stamp
            ON readings(device, kind, ifnull(sensor_run, ''), sensor_time) WHERE sensor_time IS NOT NULL;
        """

    /// Version 6: the upload queue (docs/nightscout-upload.md "The queue"). A reading is queued
    /// by a trigger, so in the very transaction that stores it: a commit that fails queues
    /// nothing and stores nothing, and the rows wait in memory together. One queue row per
    /// reading (`source` 1, `row` = readings.id) or calibration (`source` 2) and per active
    /// target; it leaves only when the target acknowledged it, or when retention deletes the
    /// row it stands for (counted in `upload_targets.dropped`).
    /// - Queued: sensor glucose (1), meter glucose (2), battery (8), calibrations.
    /// - Never queued: `origin = 2`, a reading followed from a server (a Nightscout site, Dexcom
    ///   Share, LibreLinkUp): it came from a server already, and sending it back would echo it.
    /// - `wall_time` repeats the reading's so the oldest come first through an index without a
    ///   join; re-dating moves it with the row. The upsert in the insert triggers makes a
    ///   leftover queue row (its reading replaced by `UPDATE OR REPLACE`, which fires no delete
    ///   trigger) take the new reading of a reused row id instead of failing the commit.
    /// - `upload_targets`: one per configured destination (`nightscout`), `active` while
    ///   configured; `last_success` (wall µs) survives restarts for `vigil status`.
    static let version6 = """
        CREATE TABLE upload_targets (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            active INTEGER NOT NULL DEFAULT 1,
            last_success INTEGER,
            dropped INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE upload_queue (
            source INTEGER NOT NULL,
            row INTEGER NOT NULL,
            target INTEGER NOT NULL REFERENCES upload_targets(id),
            wall_time INTEGER NOT NULL,
            PRIMARY KEY (source, row, target)) WITHOUT ROWID;
        CREATE INDEX upload_queue_by_time ON upload_queue(target, wall_time);
        CREATE TRIGGER readings_upload_queue AFTER INSERT ON readings WHEN NEW.kind IN (1, 2, 8) AND NEW.origin <> 2 BEGIN
            INSERT INTO upload_queue (source, row, target, wall_time)
                SELECT 1, NEW.id, id, NEW.wall_time FROM upload_targets WHERE active = 1
                ON CONFLICT DO UPDATE SET wall_time = excluded.wall_time;
        END;
        CREATE TRIGGER calibrations_upload_queue AFTER INSERT ON calibrations BEGIN
            INSERT INTO upload_queue (source, row, target, wall_time)
                SELECT 2, NEW.id, id, NEW.wall_time FROM upload_targets WHERE active = 1
                ON CONFLICT DO UPDATE SET wall_time = excluded.wall_time;
        END;
        CREATE TRIGGER readings_upload_pruned AFTER DELETE ON readings WHEN OLD.kind IN (1, 2, 8) BEGIN
            UPDATE upload_targets SET dropped = dropped + 1
                WHERE id IN (SELECT target FROM upload_queue WHERE source = 1 AND row = OLD.id);
            DELETE FROM upload_queue WHERE source = 1 AND row = OLD.id;
        END;
        CREATE TRIGGER calibrations_upload_pruned AFTER DELETE ON calibrations BEGIN
            UPDATE upload_targets SET dropped = dropped + 1
                WHERE id IN (SELECT target FROM upload_queue WHERE source = 2 AND row = OLD.id);
            DELETE FROM upload_queue WHERE source = 2 AND row = OLD.id;
        END;
        CREATE TRIGGER readings_upload_redated AFTER UPDATE OF wall_time ON readings WHEN OLD.kind IN (1, 2, 8) BEGIN
            UPDATE upload_queue SET wall_time = NEW.wall_time WHERE source = 1 AND row = NEW.id;
        END;
        CREATE TRIGGER calibrations_upload_redated AFTER UPDATE OF wall_time ON calibrations BEGIN
            UPDATE upload_queue SET wall_time = NEW.wall_time WHERE source = 2 AND row = NEW.id;
        END;
        """

    /// Brings `connection` to `currentVersion`, one transaction per migration (a crash between
    /// two leaves a consistent older version that the next start continues from).
    static func migrate(_ connection: SQLite.Connection) throws(HistoryError) -> (from: Int, to: Int) {
        let found: Int
        do { found = Int(try connection.scalarInt("PRAGMA user_version") ?? 0) } catch { throw .sqlite(error) }
        guard found <= currentVersion else { throw .newerSchema(found: found, newestKnown: currentVersion) }
        for version in found..<currentVersion {
            do throws(SQLiteError) {
                try connection.execute("BEGIN IMMEDIATE")
                do throws(SQLiteError) {
                    try migrations[version].run(connection)
                    try connection.execute("PRAGMA user_version = \(version + 1)")
                    try connection.execute("COMMIT")
                } catch {
                    if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
                    throw error
                }
            } catch { throw .sqlite(error) }
        }
        // ALTER TABLE invalidates nothing we cached yet, but be safe after a schema change.
        if found != currentVersion { connection.clearCache() }
        return (found, currentVersion)
    }
}
