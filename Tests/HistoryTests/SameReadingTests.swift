import App
import Clocks
import Readings
import Testing
@testable import History

/// One row per sensor reading (`SameReading`, docs/reading-identity.md): by the sensor's stamp
/// however the wall time moved, by value within 30 s for unstamped sensor glucose, adopted by
/// the stamp when it arrives later, and folded by the version 5 migration.
@Suite struct SameReadingTests {
    static func glucose(_ mgdl: Double, at wall: WallClockTime, stamp: SensorStamp? = nil, device: DeviceID = "g6",
                        origin: RecordedReading.Origin = .live) -> RecordedReading {
        RecordedReading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: .flat),
                        wallTime: wall, sensorStamp: stamp, origin: origin)
    }

    static func store(_ directory: TemporaryDirectory) throws -> HistoryStore {
        try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
    }

    @Test func theSameStampIsOneRowWhateverItsWallTime() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        let stamp = SensorStamp(run: "8112AB", count: 86_400)
        // Re-read at each of 30 reconnections, its time estimated anew each time (ms apart),
        // and once more after a restart, backfilled 0.8 s off.
        for i in 0..<30 { store.append([Self.glucose(112, at: noon + .milliseconds(Int64(i * 3)), stamp: stamp)]) }
        store.append([Self.glucose(112, at: noon - .milliseconds(800), stamp: stamp, origin: .backfill)])
        #expect(store.commit() == .committed(rows: 1, duplicates: 30))
        let rows = Array(store.readings())
        #expect(rows.map(\.sensorStamp) == [stamp])
        #expect(rows.first?.wallTime == noon, "the first one stored is kept")
    }

    @Test func aNewTransmitterCountingFromTheSameNumberIsANewReading() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        store.append([Self.glucose(112, at: noon, stamp: SensorStamp(run: "8112AB", count: 300)),
                      Self.glucose(112, at: noon + .seconds(600), stamp: SensorStamp(run: "8134CD", count: 300))])
        #expect(store.commit() == .committed(rows: 2, duplicates: 0))
    }

    @Test func unstampedGlucoseIsOneRowPerValueWithinThirtySeconds() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        store.append([Self.glucose(140, at: noon),
                      Self.glucose(140, at: noon + .seconds(30)),   // the same, dated 30 s off
                      Self.glucose(140, at: noon - .seconds(12)),   // the same, earlier estimate
                      Self.glucose(140, at: noon + .seconds(31)),   // a reading a minute's sensor makes
                      Self.glucose(141, at: noon + .seconds(5)),    // another value
                      Self.glucose(140, at: noon, device: "g4")])   // another device
        #expect(store.commit() == .committed(rows: 4, duplicates: 2))
    }

    @Test func heartRateKeepsItsExactRule() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        let beat = { (s: Int64) in
            RecordedReading(device: "strap", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon + .seconds(s))
        }
        store.append([beat(0), beat(1), beat(2), beat(2)])  // a steady heart; the last one stored twice
        #expect(store.commit() == .committed(rows: 3, duplicates: 1))
    }

    @Test func aStampedReadingAdoptsTheRowAnOlderVersionStoredWithoutOne() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(directory)
        store.append([Self.glucose(112, at: noon)])  // stored before stamps existed
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
        let stamp = SensorStamp(run: "8112AB", count: 86_400)
        store.append([Self.glucose(112, at: noon + .milliseconds(700), stamp: stamp, origin: .backfill)])
        #expect(store.commit() == .committed(rows: 0, duplicates: 1))
        #expect(Array(store.readings()).map(\.sensorStamp) == [stamp])
        #expect(Array(store.readings()).map(\.origin) == [.live], "the first row keeps its place")
        // From now on the stamp alone decides.
        store.append([Self.glucose(112, at: noon + .seconds(20), stamp: stamp)])
        #expect(store.commit() == .committed(rows: 0, duplicates: 1))
        // Another stamp near it is another reading the sensor made (never adopted twice).
        store.append([Self.glucose(112, at: noon + .seconds(10), stamp: SensorStamp(run: "8112AB", count: 86_460))])
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
        #expect(try store.counts().readings == [.glucose: 2])
    }

    /// A version 4 file as the reconnection churn left it (the same reading stored 30 times,
    /// ms apart; 6 backfilled readings stored twice after a restart, under a second apart)
    /// is folded by the version 5 migration to one row per reading, keeping the first, and the
    /// report's statistics become those of the distinct readings.
    @Test func theVersion5MigrationFoldsTheDuplicatesAFileAlreadyHolds() throws {
        let directory = try TemporaryDirectory()
        var distinct: [RecordedReading] = []
        do {
            let connection = try SQLite.Connection(path: directory.database)
            for migration in HistorySchema.migrations.prefix(4) { try migration.run(connection) }
            try connection.execute("PRAGMA user_version = 4")
            try connection.execute("INSERT INTO devices (id, name, type) VALUES (1, 'g6', 'dexcom'), (2, 'strap', 'heart-rate')")
            var rows: [String] = []
            func row(_ device: Int, _ kind: Int, _ value: Double, _ wall: WallClockTime, origin: Int = 0) {
                rows.append("(\(device), \(kind), \(value), \(kind == 1 ? "'Flat'" : "NULL"), \(kind == 3 ? "'detected'" : "NULL"), \(wall.microsecondsSinceEpoch), \(origin))")
            }
            // Six backfilled readings, then each stored again after a restart, 0.4–0.9 s off.
            for k in 0..<6 {
                let wall = noon - .seconds(Int64(300 * (6 - k)))
                row(1, 1, 100 + Double(k), wall, origin: 1)
                distinct.append(Self.glucose(100 + Double(k), at: wall, origin: .backfill))
            }
            for k in 0..<6 { row(1, 1, 100 + Double(k), noon - .seconds(Int64(300 * (6 - k))) + .milliseconds(Int64(400 + 100 * k)), origin: 1) }
            // The live reading, re-read 30 times a second apart (times a few ms apart).
            for i in 0..<30 { row(1, 1, 112, noon + .milliseconds(Int64(i * 4))) }
            distinct.append(Self.glucose(112, at: noon))
            // The next reading, 5 minutes on, with the same value: a reading of its own.
            row(1, 1, 112, noon + .seconds(300))
            distinct.append(Self.glucose(112, at: noon + .seconds(300)))
            // Heart rate at one second, the same value: every beat stays.
            for s in 0..<5 { row(2, 3, 60, noon + .seconds(Int64(s))) }
            try connection.execute("INSERT INTO readings (device, kind, value, trend, detail, wall_time, origin) VALUES \(rows.joined(separator: ", "))")
            #expect(try connection.scalarInt("SELECT count FROM reading_counts WHERE kind = 1") == 43)
        }
        let store = try Self.store(directory)
        #expect(store.outcome == .opened(fromVersion: 4))
        let glucose = Array(store.readings(HistoryQuery(kind: .glucose)))
        #expect(glucose == distinct)
        #expect(try store.counts().readings == [.glucose: 8, .heartRate: 5])
        #expect(try store.check(full: true) == "ok")
        // The report over the folded history is the report of the distinct readings.
        let period = (start: noon - .seconds(3600), end: noon + .seconds(3600))
        #expect(ReportStatistics(readings: glucose, start: period.start, end: period.end)
                == ReportStatistics(readings: distinct, start: period.start, end: period.end))
        // And the same reading coming in again, now stamped, adopts its row.
        store.append([Self.glucose(112, at: noon + .milliseconds(50), stamp: SensorStamp(run: "8112AB", count: 86_400))])
        #expect(store.commit() == .committed(rows: 0, duplicates: 1))
    }
}
