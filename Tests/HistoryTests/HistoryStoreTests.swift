import Alarms
import Clocks
import Platform
import Readings
import Testing
@testable import History

@Suite struct HistoryStoreTests {
    let dexcom: DeviceID = "dexcom-811234"
    let polar: DeviceID = "polar-h10"

    @Test func createsThenReopensAFreshFile() throws {
        let directory = try TemporaryDirectory()
        let first = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        #expect(first.outcome == .created)
        #expect(try first.connection.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try first.connection.scalarInt("PRAGMA synchronous") == 1, "NORMAL")
        #expect(try first.connection.scalarInt("PRAGMA auto_vacuum") == 2, "INCREMENTAL")
        #expect(try first.connection.scalarInt("PRAGMA user_version") == Int64(HistorySchema.currentVersion))
        let second = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        #expect(second.outcome == .opened(fromVersion: HistorySchema.currentVersion))
    }

    @Test func everyValueRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let written = everyValue.enumerated().map { index, value in
            RecordedReading(device: index % 2 == 0 ? dexcom : polar, value: value,
                            wallTime: noon + .seconds(index), sensorStamp: index % 3 == 0 ? SensorStamp(run: "", count: Int64(index * 300)) : nil,
                            origin: index % 4 == 0 ? .backfill : .live)
        }
        store.append(written, receivedAt: MonotonicInstant(nanoseconds: 5))
        #expect(store.commit() == .committed(rows: written.count, duplicates: 0))
        #expect(store.pendingCount == 0)
        let cursor = store.readings()
        #expect(Array(cursor) == written)
        #expect(cursor.error == nil)
    }

    @Test func queriesFilterAndOrderByWallTime() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        // Appended out of order: the cursor orders by wall time.
        var glucose: [RecordedReading] = []
        var heart: [RecordedReading] = []
        for i in 0..<6 {
            let at: Int64 = 300 * Int64(i)
            let mgdl = GlucoseConcentration(milligramsPerDeciliter: Double(100 + i))
            glucose.insert(RecordedReading(device: dexcom, value: .glucose(mgdl, trend: .flat), wallTime: noon + .seconds(at), sensorStamp: SensorStamp(run: "", count: at)), at: 0)
            let bpm = BeatsPerMinute(UInt16(60 + i))
            heart.append(RecordedReading(device: polar, value: .heartRate(bpm, contact: .detected), wallTime: noon + .seconds(at + 1)))
        }
        store.append(glucose + heart)
        #expect(store.commit() == .committed(rows: 12, duplicates: 0))

        let all = Array(store.readings())
        #expect(all.map(\.wallTime) == all.map(\.wallTime).sorted())
        #expect(all.count == 12)
        #expect(Array(store.readings(HistoryQuery(kind: .glucose))) == glucose.reversed())
        #expect(Array(store.readings(HistoryQuery(device: polar))) == heart)
        // since inclusive, until exclusive.
        let window = Array(store.readings(HistoryQuery(since: noon + .seconds(300), until: noon + .seconds(900), kind: .glucose)))
        #expect(window.map(\.sensorStamp?.count) == [300, 600])
        #expect(Array(store.readings(HistoryQuery(device: "nobody"))).isEmpty)
        let counts = try store.counts()
        #expect(counts.readings == [.glucose: 6, .heartRate: 6])
        #expect(counts.devices == 2)
        #expect(counts.usedBytes > 0)
    }

    /// The counts STATUS shows come from reading_counts, kept by triggers: after inserts,
    /// duplicates (which insert nothing), prunes by age and by size, and deletes, they are what
    /// counting the rows gives.
    @Test func countsAreTheRowsThroughInsertsDuplicatesAndPrunes() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        func countedByScanning() throws -> [Reading.Kind: Int] {
            let select = try store.connection.prepare("SELECT kind, COUNT(*) FROM readings GROUP BY kind")
            var result: [Reading.Kind: Int] = [:]
            while try select.step() { result[ReadingColumns.kind(ofCode: select.int64(0))!] = Int(select.int64(1)) }
            return result
        }
        let day: Int64 = 86_400
        let rows = (0..<400).map { i -> RecordedReading in
            let at = noon - .seconds(Int64(i) * day / 10)
            switch i % 4 {
            case 0: return RecordedReading(device: dexcom, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(90 + i % 50)), trend: .flat),
                                           wallTime: at, sensorStamp: SensorStamp(run: "", count: Int64(i) * 300))
            case 1: return RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(UInt16(60 + i % 30)), contact: .detected), wallTime: at)
            case 2: return RecordedReading(device: polar, value: .rrIntervals([RRInterval(ticks: UInt16(900 + i))]), wallTime: at)
            default: return RecordedReading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4 + Double(i % 3))), wallTime: at)
            }
        }
        store.append(rows)
        #expect(store.commit() == .committed(rows: 400, duplicates: 0))
        #expect(try store.counts().readings == [.glucose: 100, .heartRate: 100, .rrIntervals: 100, .temperature: 100])
        // Replayed: nothing inserted, nothing counted.
        store.append(Array(rows.prefix(120)))
        #expect(store.commit() == .committed(rows: 0, duplicates: 120))
        #expect(try store.counts().readings == countedByScanning())
        // 30 days of heart rate and RR intervals are kept, a year of the rest.
        let aged = try store.prune(now: noon, policy: .standard, budget: 10_000)
        #expect(aged.deleted == 2 * 25)
        #expect(try store.counts().readings == [.glucose: 100, .heartRate: 75, .rrIntervals: 75, .temperature: 100])
        // The size cap deletes until under it: the counts follow every step.
        let capped = try store.prune(now: noon, policy: RetentionPolicy(keep: [:], otherRows: .seconds(3650 * day), maximumBytes: 1),
                                     budget: 120)
        #expect(capped.deleted == 120)
        #expect(try store.counts().readings == countedByScanning())
        #expect(try store.counts().totalReadings == 350 - 120)
        try store.connection.execute("DELETE FROM readings")
        #expect(try store.counts().readings.isEmpty)
        #expect(try countedByScanning().isEmpty)
    }

    /// A burst grows the -wal file past the checkpoint point (here: commits while an export
    /// holds a read); once the burst is over, it is cut back to the limit rather than staying
    /// at its largest on the card for good.
    @Test func theWALShrinksBackAfterABurst() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let wal = directory.database + "-wal"
        func commitHeartRate(_ batch: Int) {
            store.append((0..<1_000).map { i in
                RecordedReading(device: polar, value: .rrIntervals((0..<8).map { RRInterval(ticks: UInt16(700 + (batch * 1_000 + i + $0) % 600)) }),
                                wallTime: noon + .seconds(Int64(batch * 1_000 + i)))
            })
            #expect(store.commit() == .committed(rows: 1_000, duplicates: 0))
        }
        commitHeartRate(0)
        var reader: ReadingCursor? = store.readings()
        #expect(reader?.next() != nil)
        var batch = 1
        while try FileSystem.fileSize(path: wal) < 3 * HistoryStore.walSizeLimit {
            commitHeartRate(batch)
            batch += 1
        }
        reader = nil
        // The first commit after checkpoints the whole log (no reader holds it now); the next
        // starts the log again, and that is when SQLite cuts it.
        for _ in 0..<2 { commitHeartRate(batch); batch += 1 }
        #expect(try FileSystem.fileSize(path: wal) <= HistoryStore.walSizeLimit)
        #expect(try store.counts().totalReadings == batch * 1_000)
    }

    /// Backfill of a reading seen live (a different wall estimate, same sensor time), a commit
    /// retried, and a whole session replayed: none adds a row.
    @Test func backfillRetriesAndReplaysNeverDuplicate() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let live = RecordedReading(device: dexcom, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 120), trend: .flat),
                                   wallTime: noon, sensorStamp: SensorStamp(run: "", count: 86_400), origin: .live)
        var backfilled = live
        backfilled.wallTime = noon + .milliseconds(1500)
        backfilled.origin = .backfill
        let heart = RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(70), contact: .detected), wallTime: noon)
        store.append([live, heart])
        #expect(store.commit() == .committed(rows: 2, duplicates: 0))
        store.append([backfilled, heart, live])
        #expect(store.commit() == .committed(rows: 0, duplicates: 3))
        // Same device, kind and sensor time but another device: a different reading.
        var other = live
        other.device = "dexcom-819999"
        // Same wall time but another kind: a different reading.
        let rr = RecordedReading(device: polar, value: .rrIntervals([RRInterval(ticks: 900)]), wallTime: noon)
        store.append([other, rr])
        #expect(store.commit() == .committed(rows: 2, duplicates: 0))
        let stored = Array(store.readings(HistoryQuery(device: dexcom)))
        #expect(stored == [live], "the first copy (live) is kept")
        #expect(try store.counts().totalReadings == 4)
    }

    @Test func differentReadingsReceivedTogetherAreAllKept() throws {
        // Notifications read from the controller in one go share one reception instant, so
        // they have the same wall time: only a repeated value is a duplicate.
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let beats = [71, 72, 73].map {
            RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(UInt16($0)), contact: .detected), wallTime: noon)
        }
        let noContact = RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(71), contact: .notDetected), wallTime: noon)
        store.append(beats + [noContact])
        #expect(store.commit() == .committed(rows: 4, duplicates: 0))
        store.append(beats)
        #expect(store.commit() == .committed(rows: 0, duplicates: 3), "a replay of the same values is kept once")
        #expect(try store.counts().readings[.heartRate] == 4)
    }

    @Test func alarmEventsCalibrationsAndDevicesRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let monotonicNow = MonotonicInstant(nanoseconds: 600_000_000_000)
        let events = [
            AlarmEvent(time: MonotonicInstant(nanoseconds: 540_000_000_000), kind: .urgentLow, change: .raised(.high)),
            AlarmEvent(time: MonotonicInstant(nanoseconds: 550_000_000_000), kind: .urgentLow,
                       change: .snoozed(until: MonotonicInstant(nanoseconds: 2_350_000_000_000))),
            AlarmEvent(time: MonotonicInstant(nanoseconds: 560_000_000_000), kind: .signalLoss(dexcom),
                       change: .acknowledged(until: MonotonicInstant(nanoseconds: 660_000_000_000))),
            AlarmEvent(time: MonotonicInstant(nanoseconds: 570_000_000_000), kind: .fault(.storageFailing), change: .escalated),
            AlarmEvent(time: MonotonicInstant(nanoseconds: 580_000_000_000), kind: .device(.batteryLow, polar), change: .reRaised),
            AlarmEvent(time: MonotonicInstant(nanoseconds: 590_000_000_000), kind: .urgentLow, change: .cleared),
        ]
        store.append(events, monotonicNow: monotonicNow, wallNow: noon)
        let calibration = Calibration(device: dexcom, glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: noon - .seconds(30))
        store.append(calibration)
        store.append(calibration)
        store.remember(DeviceRecord(id: dexcom, type: "dexcom-g7", address: "C0:11:22:33:44:55/random", state: "bonded"), at: noon)
        store.remember(DeviceRecord(id: dexcom, type: "dexcom-g7", address: "C0:11:22:33:44:55/random", state: "session 2"), at: noon)
        #expect(store.commit() == .committed(rows: 6 + 1 + 2, duplicates: 1))

        let read = try store.alarmEvents()
        #expect(read.map(\.kind) == events.map(\.kind))
        #expect(read.map(\.wallTime) == [60, 50, 40, 30, 20, 10].map { noon - .seconds($0) })
        #expect(read.map(\.change) == [
            .raised(.high), .snoozed(until: noon + .seconds(1750)), .acknowledged(until: noon + .seconds(60)),
            .escalated, .reRaised, .cleared,
        ])
        #expect(try store.alarmEvents(since: noon - .seconds(40), until: noon - .seconds(20)).count == 2)
        #expect(try store.calibrations() == [calibration])
        #expect(try store.devices() == [DeviceRecord(id: dexcom, type: "dexcom-g7", address: "C0:11:22:33:44:55/random", state: "session 2")])
        let counts = try store.counts()
        #expect(counts.alarmEvents == 6)
        #expect(counts.calibrations == 1)
    }

    @Test func aMalformedRowEndsTheCursorWithAnError() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        store.append([RecordedReading(device: dexcom, value: .battery(Percent(50)!), wallTime: noon),
                      RecordedReading(device: dexcom, value: .battery(Percent(40)!), wallTime: noon + .seconds(1))])
        store.commit()
        try store.connection.execute("UPDATE readings SET kind = 42 WHERE wall_time = \((noon + .seconds(1)).microsecondsSinceEpoch)")
        let cursor = store.readings()
        #expect(cursor.next()?.value == .battery(Percent(50)!))
        #expect(cursor.next() == nil)
        guard case .malformedRow(_, let reason)? = cursor.error else {
            Issue.record("no error: \(String(describing: cursor.error))")
            return
        }
        #expect(reason == "unknown kind code 42")
    }

    /// A garbage file (as a bad SD block or a half-copied file would leave) is moved aside, and
    /// a fresh history takes its place.
    @Test func aCorruptFileIsMovedAside() throws {
        let directory = try TemporaryDirectory()
        let garbage = Array("this is not an SQLite database, just bytes on a card".utf8) + [UInt8](repeating: 0xA5, count: 8192)
        try AtomicFile.write(path: directory.database, bytes: garbage)
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let moved = directory.database + ".corrupt-20261122T100000Z"
        guard case let .recreatedAfterCorruption(movedTo, reason) = store.outcome else {
            Issue.record("outcome \(store.outcome)")
            return
        }
        #expect(movedTo == moved)
        #expect(!reason.isEmpty)
        #expect(try FileSystem.readFile(path: moved) == garbage)
        #expect(try directory.files() == ["history.sqlite", "history.sqlite-shm", "history.sqlite-wal", "history.sqlite.corrupt-20261122T100000Z"])
        store.append([RecordedReading(device: dexcom, value: .battery(Percent(50)!), wallTime: noon)])
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
        #expect(try store.check(full: true) == "ok")
    }

    /// A real database with a damaged page: the check at open fails, so it is moved aside too.
    @Test func aDamagedDatabaseIsMovedAsideAndASecondOneGetsAnotherName() throws {
        let directory = try TemporaryDirectory()
        for attempt in 1...2 {
            do {
                let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
                store.append((0..<2000).map { RecordedReading(device: dexcom, value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon + .seconds($0)) })
                store.commit()
                try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            var bytes = try FileSystem.readFile(path: directory.database)
            // Overwrite the middle of the file (b-tree pages of the readings), keep the header.
            for i in (bytes.count / 2)..<(bytes.count / 2 + 4096) { bytes[i] = 0x5A }
            try AtomicFile.write(path: directory.database, bytes: bytes)
            let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
            let suffix = attempt == 1 ? "" : "-2"
            #expect(store.outcome == .recreatedAfterCorruption(movedTo: directory.database + ".corrupt-20261122T100000Z" + suffix,
                                                               reason: store.outcome.reason ?? ""))
            #expect(try store.counts().totalReadings == 0)
        }
    }

    /// Full disk simulated with `PRAGMA max_page_count` (a tiny file system would need root to
    /// mount): the rows stay pending, the failure is reported, and the next commit after space
    /// returns writes them all.
    @Test func aFullDiskKeepsRowsAndResumes() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon, pendingLimit: 5_000)
        store.append([RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon)])
        store.commit()
        let pages = try #require(try store.connection.scalarInt("PRAGMA page_count"))
        _ = try store.connection.scalarInt("PRAGMA max_page_count = \(pages)")
        let batch = (1...3000).map { RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(61), contact: .detected), wallTime: noon + .seconds($0)) }
        store.append(batch)
        guard case let .failed(error, pending, dropped) = store.commit() else {
            Issue.record("a commit past max_page_count succeeded")
            return
        }
        guard case let .sqlite(sqliteError) = error else { Issue.record("\(error)"); return }
        #expect(sqliteError.isFull)
        #expect(sqliteError.isStorageFailure)
        #expect(pending == 3000)
        #expect(dropped == 0)
        #expect(try store.counts().totalReadings == 1, "the failed transaction left nothing behind")

        // Still full, and more arrives than the bound: the oldest go, counted once.
        store.append((3001...5500).map { RecordedReading(device: polar, value: .heartRate(BeatsPerMinute(62), contact: .detected), wallTime: noon + .seconds($0)) })
        guard case let .failed(_, pendingAgain, droppedAgain) = store.commit() else {
            Issue.record("still full, yet committed")
            return
        }
        #expect(pendingAgain == 5000)
        #expect(droppedAgain == 500)
        #expect(store.droppedTotal == 500)

        _ = try store.connection.scalarInt("PRAGMA max_page_count = 1000000")
        #expect(store.commit() == .committed(rows: 5000, duplicates: 0))
        let stored = Array(store.readings())
        #expect(stored.count == 5001)
        #expect(stored[1].wallTime == noon + .seconds(501), "the 500 oldest pending rows were the ones dropped")
        #expect(try store.check(full: true) == "ok")
    }

    @Test func aReadOnlyFileFailsTheCommitAndKeepsTheRows() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        try store.connection.execute("PRAGMA query_only = ON")
        store.append([RecordedReading(device: dexcom, value: .battery(Percent(50)!), wallTime: noon)])
        guard case let .failed(.sqlite(error), pending, _) = store.commit() else {
            Issue.record("committed while read-only")
            return
        }
        #expect(error.code == 8, "SQLITE_READONLY")
        #expect(pending == 1)
        try store.connection.execute("PRAGMA query_only = OFF")
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
    }

    @Test func nothingPendingIsNotACommit() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        #expect(store.commit() == .nothingPending)
    }

    // MARK: openForReading: a second reader beside the appliance

    /// A reader opened beside the writer sees what the writer has committed since, page by
    /// page, and cannot write.
    @Test func aReaderBesideTheWriterSeesItsCommitsAndCannotWrite() throws {
        let directory = try TemporaryDirectory()
        let writer = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        writer.append([RecordedReading(device: dexcom, value: .battery(Percent(50)!), wallTime: noon)])
        #expect(writer.commit() == .committed(rows: 1, duplicates: 0))
        let reader = try HistoryStore.openForReading(path: directory.database)
        #expect(reader.outcome == .opened(fromVersion: HistorySchema.currentVersion))
        #expect(Array(reader.readings()).count == 1)
        writer.append([RecordedReading(device: dexcom, value: .battery(Percent(49)!), wallTime: noon + .seconds(60))])
        #expect(writer.commit() == .committed(rows: 1, duplicates: 0))
        #expect(Array(reader.readings()).count == 2)
        reader.append([RecordedReading(device: polar, value: .battery(Percent(10)!), wallTime: noon)])
        guard case .failed(.sqlite(let error), pending: 1, dropped: 0) = reader.commit() else {
            Issue.record("a reader wrote")
            return
        }
        #expect(error.code == 8, "SQLITE_READONLY")
    }

    /// A file it finds corrupt stays where it is, byte for byte: the appliance that writes it
    /// decides, at its own start, what to do with it.
    @Test func aReaderNeverMovesACorruptFileAside() throws {
        let directory = try TemporaryDirectory()
        let garbage = Array("this is not an SQLite database, just bytes on a card".utf8) + [UInt8](repeating: 0xA5, count: 8192)
        try AtomicFile.write(path: directory.database, bytes: garbage)
        #expect(throws: HistoryError.self) { try HistoryStore.openForReading(path: directory.database) }
        #expect(try directory.files() == ["history.sqlite"])
        #expect(try FileSystem.readFile(path: directory.database) == garbage)
    }

    /// Missing: an error, and no file made. An older schema: an error that says who migrates it.
    @Test func aReaderNeitherCreatesNorMigrates() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: HistoryError.self) { try HistoryStore.openForReading(path: directory.database) }
        #expect(try directory.files() == [])
        let writer = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        try writer.connection.execute("PRAGMA user_version = \(HistorySchema.currentVersion - 1)")
        #expect(throws: HistoryError.olderSchema(found: HistorySchema.currentVersion - 1, current: HistorySchema.currentVersion)) {
            try HistoryStore.openForReading(path: directory.database)
        }
        try writer.connection.execute("PRAGMA user_version = \(HistorySchema.currentVersion + 1)")
        #expect(throws: HistoryError.newerSchema(found: HistorySchema.currentVersion + 1, newestKnown: HistorySchema.currentVersion)) {
            try HistoryStore.openForReading(path: directory.database)
        }
    }
}

extension HistoryStore.OpenOutcome {
    var reason: String? {
        if case let .recreatedAfterCorruption(_, reason) = self { return reason }
        return nil
    }
}

/// The `origin` column: 0 live, 1 backfill, 2 followed (docs/followers.md), read back as written.
@Suite struct HistoryOriginTests {
    @Test func everyOriginIsStoredAndReadBack() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let rows = RecordedReading.Origin.allCases.enumerated().map { index, origin in
            RecordedReading(device: "emma", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 100 + Double(index)), trend: .flat),
                            wallTime: noon + .seconds(Int64(index) * 300), sensorStamp: SensorStamp(run: "nightscout", count: Int64(index)),
                            origin: origin)
        }
        store.append(rows, receivedAt: nil)
        #expect(store.commit() == .committed(rows: 3, duplicates: 0))
        #expect(Array(store.readings()).map(\.origin) == [.live, .backfill, .followed])
        #expect(try store.connection.scalarInt("SELECT origin FROM readings WHERE sensor_time = 2") == 2)
    }

    @Test func aCodeALaterVigilWroteReadsAsLive() {
        #expect(RecordedReading.Origin(storedCode: 7) == .live)
        #expect(RecordedReading.Origin.allCases.map(\.storedCode) == [0, 1, 2])
    }
}
