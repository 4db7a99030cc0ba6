import Clocks
import Readings
import Testing
@testable import History

@Suite struct HistorySchemaTests {
    /// Version 1 as Vigil first shipped it, written out by hand (not by `HistorySchema`), with
    /// rows in every table: what an appliance upgraded from version 1 has on its card.
    static let version1Fixture = """
        CREATE TABLE kinds (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit TEXT NOT NULL);
        CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, type TEXT, address TEXT, state TEXT, updated_at INTEGER);
        CREATE TABLE readings (id INTEGER PRIMARY KEY, device INTEGER NOT NULL REFERENCES devices(id), kind INTEGER NOT NULL,
            value REAL NOT NULL, trend TEXT, detail TEXT, wall_time INTEGER NOT NULL, sensor_time INTEGER, origin INTEGER NOT NULL DEFAULT 0);
        CREATE UNIQUE INDEX readings_unique_sensor_time ON readings(device, kind, sensor_time) WHERE sensor_time IS NOT NULL;
        CREATE UNIQUE INDEX readings_unique_wall_time ON readings(device, kind, wall_time) WHERE sensor_time IS NULL;
        CREATE INDEX readings_by_wall_time ON readings(wall_time);
        CREATE TABLE alarm_events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, change TEXT NOT NULL, priority INTEGER NOT NULL,
            until INTEGER, wall_time INTEGER NOT NULL);
        CREATE INDEX alarm_events_by_wall_time ON alarm_events(wall_time);
        CREATE TABLE calibrations (id INTEGER PRIMARY KEY, device INTEGER NOT NULL REFERENCES devices(id), glucose REAL NOT NULL,
            wall_time INTEGER NOT NULL, UNIQUE (device, wall_time));
        INSERT INTO devices (id, name, type) VALUES (1, 'dexcom-811234', 'dexcom-g6'), (2, 'polar-h10', NULL);
        INSERT INTO readings (device, kind, value, trend, detail, wall_time, sensor_time, origin) VALUES
            (1, 1, 112, 'Flat', NULL, 1795341600000000, 86400, 0),
            (2, 3, 58, NULL, 'detected', 1795341601000000, NULL, 0),
            (1, 1, 109, 'FortyFiveDown', NULL, 1795341300000000, 86100, 1);
        INSERT INTO alarm_events (kind, change, priority, until, wall_time) VALUES ('low', 'raised', 1, NULL, 1795341600000000);
        INSERT INTO calibrations (device, glucose, wall_time) VALUES (1, 104.0, 1795341000000000);
        PRAGMA user_version = 1;
        """

    @Test func migratesTheHandWrittenVersion1() throws {
        let directory = try TemporaryDirectory()
        do {
            let connection = try SQLite.Connection(path: directory.database)
            try connection.execute(Self.version1Fixture)
        }
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        #expect(store.outcome == .opened(fromVersion: 1))
        #expect(try store.connection.scalarInt("PRAGMA user_version") == Int64(HistorySchema.currentVersion))
        let readings = Array(store.readings())
        #expect(readings == [
            RecordedReading(device: "dexcom-811234", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 109), trend: .fortyFiveDown),
                            wallTime: noon - .seconds(300), sensorStamp: SensorStamp(run: "", count: 86100), origin: .backfill),
            RecordedReading(device: "dexcom-811234", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 112), trend: .flat),
                            wallTime: noon, sensorStamp: SensorStamp(run: "", count: 86400), origin: .live),
            RecordedReading(device: "polar-h10", value: .heartRate(BeatsPerMinute(58), contact: .detected), wallTime: noon + .seconds(1)),
        ])
        #expect(try store.alarmEvents() == [RecordedAlarmEvent(kind: .glucose(.low), change: .raised(.medium), wallTime: noon)])
        #expect(try store.calibrations() == [Calibration(device: "dexcom-811234", glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: noon - .seconds(600))])
        #expect(try store.devices() == [DeviceRecord(id: "dexcom-811234", type: "dexcom-g6")])
        // The uniqueness rule still holds across the migration, and version 2's columns work.
        store.append([readings[1]], receivedAt: MonotonicInstant(nanoseconds: 1))
        #expect(store.commit() == .committed(rows: 0, duplicates: 1))
        store.append([RecordedReading(device: "polar-h10", value: .heartRate(BeatsPerMinute(59), contact: .detected), wallTime: noon + .seconds(2))],
                      receivedAt: MonotonicInstant(nanoseconds: 2))
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
        // Version 4's counts start from the rows the file had, and follow what comes after.
        #expect(try store.counts().readings == [.glucose: 2, .heartRate: 2])
        #expect(try store.check(full: true) == "ok")
    }

    /// From every version 0...current, by running the first n migrations and then opening: the
    /// result has the same schema as a fresh file.
    @Test(arguments: 0...HistorySchema.currentVersion)
    func migratesFromEveryVersion(version: Int) throws {
        let directory = try TemporaryDirectory()
        do {
            let connection = try SQLite.Connection(path: directory.database)
            for migration in HistorySchema.migrations.prefix(version) { try migration.run(connection) }
            try connection.execute("PRAGMA user_version = \(version)")
        }
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        #expect(store.outcome == (version == 0 ? .created : .opened(fromVersion: version)))
        let fresh = try TemporaryDirectory()
        let reference = try HistoryStore.open(path: fresh.database, bootID: "b1", now: noon)
        #expect(try schema(store.connection) == schema(reference.connection))
        store.append([RecordedReading(device: "d", value: .battery(Percent(9)!), wallTime: noon)], receivedAt: .zero)
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
    }

    @Test func aNewerSchemaIsRefusedNotMovedAside() throws {
        let directory = try TemporaryDirectory()
        do {
            let connection = try SQLite.Connection(path: directory.database)
            try connection.execute("PRAGMA user_version = \(HistorySchema.currentVersion + 1)")
        }
        #expect(throws: HistoryError.newerSchema(found: HistorySchema.currentVersion + 1, newestKnown: HistorySchema.currentVersion)) {
            _ = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        }
        #expect(try directory.files().contains("history.sqlite"))
    }

    private func schema(_ connection: SQLite.Connection) throws -> [String] {
        let statement = try connection.prepare("SELECT type, name, tbl_name FROM sqlite_schema ORDER BY name")
        var rows: [String] = []
        while try statement.step() {
            rows.append("\(statement.text(0) ?? "") \(statement.text(1) ?? "") \(statement.text(2) ?? "")")
        }
        // Column lists too (ALTER TABLE appends, so compare names in order).
        for table in ["readings", "alarm_events", "calibrations", "devices", "boots", "clock_jumps"] {
            let columns = try connection.prepare("SELECT name FROM pragma_table_info('\(table)')")
            var names: [String] = []
            while try columns.step() { names.append(columns.text(0) ?? "") }
            rows.append("\(table): \(names.joined(separator: ","))")
        }
        return rows
    }
}
