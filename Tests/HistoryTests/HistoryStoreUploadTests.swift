import Clocks
import Readings
import Testing
@testable import History

/// The upload queue (schema version 6): queued in the transaction that stores a row, gone only
/// when acknowledged or pruned (and then counted), kept through a failed commit and a restart.
@Suite struct HistoryStoreUploadTests {
    let dexcom: DeviceID = "dexcom"
    static let day = Duration.seconds(86_400)

    func glucose(_ mgdL: Double, at time: WallClockTime, origin: RecordedReading.Origin = .live) -> RecordedReading {
        RecordedReading(device: dexcom, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: .flat),
                        wallTime: time, origin: origin)
    }

    func open(_ directory: TemporaryDirectory, targets: Set<String> = ["nightscout"]) throws -> HistoryStore {
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        store.registerUploadTargets(targets)
        return store
    }

    /// What the queue holds as (kind or "calibration", wall time), in its order.
    func queued(_ store: HistoryStore, limit: Int = 1000) throws -> [String] {
        try store.uploadBatch(for: "nightscout", limit: limit).items.map { item in
            switch item.content {
            case let .reading(reading): "\(reading.kind.rawValue) \(reading.wallTime.secondsSinceEpoch - noon.secondsSinceEpoch)"
            case let .calibration(calibration): "calibration \(calibration.wallTime.secondsSinceEpoch - noon.secondsSinceEpoch)"
            case let .unreadable(reason): "unreadable: \(reason)"
            }
        }
    }

    @Test func glucoseMeterBatteryAndCalibrationsAreQueuedOldestFirstAndNothingElse() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon + .seconds(300)),
                      RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil), wallTime: noon + .seconds(60)),
                      RecordedReading(device: "polar", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon),
                      RecordedReading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4)), wallTime: noon),
                      RecordedReading(device: dexcom, value: .battery(Percent(80)!), wallTime: noon + .seconds(120)),
                      glucose(115, at: noon, origin: .backfill)])
        store.append(Calibration(device: dexcom, glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: noon + .seconds(61)))
        #expect(try queued(store).isEmpty, "appended is not stored, and so not queued")
        store.commit()
        #expect(try queued(store) == ["glucose 0", "meter-glucose 60", "calibration 61", "battery 120", "glucose 300"])
        let status = try store.uploadQueueStatus(for: "nightscout")
        #expect(status == UploadQueue.Status(queued: 5, oldest: noon, lastSuccess: nil, droppedUnsent: 0))
        let first = try #require(try store.uploadBatch(for: "nightscout", limit: 1).items.first)
        #expect(first.content == .reading(glucose(115, at: noon, origin: .backfill)), "read back whole, backfill kept")
        #expect(try store.uploadBatch(for: "nightscout", limit: 2).status.queued == 5, "a batch says the queue's whole length")
    }

    /// A reading followed from a server (origin 2) came from a server already: the trigger's
    /// `NEW.origin <> 2` leaves it out.
    @Test func aFollowedReadingIsNeverQueued() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon), glucose(99, at: noon + .seconds(300), origin: .followed)])
        store.commit()
        #expect(try store.counts().readings[.glucose] == 2)
        #expect(try queued(store) == ["glucose 0"])
    }

    @Test func aDuplicateIsNotQueuedTwiceAndAnAcknowledgedRowLeavesForGood() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon), glucose(125, at: noon + .seconds(300))])
        store.commit()
        store.append([glucose(120, at: noon)])  // the same reading read again
        #expect(store.commit() == .committed(rows: 0, duplicates: 1))
        let batch = try store.uploadBatch(for: "nightscout", limit: 10)
        #expect(batch.items.count == 2)
        try store.acknowledgeUploads([batch.items[0].id], for: "nightscout", at: noon + .seconds(400))
        #expect(try queued(store) == ["glucose 300"])
        let status = try store.uploadQueueStatus(for: "nightscout")
        #expect(status.queued == 1)
        #expect(status.oldest == noon + .seconds(300))
        #expect(status.lastSuccess == noon + .seconds(400))
        // Acknowledging again, or an id that is not queued, changes nothing.
        try store.acknowledgeUploads([batch.items[0].id, UploadQueue.ItemID(source: .calibration, row: 99)], for: "nightscout", at: nil)
        #expect(try store.uploadQueueStatus(for: "nightscout") == status)
    }

    /// A restart with a full queue: the next run's batches start where the last acknowledged
    /// one ended, and the last success is still known.
    @Test func aRestartResumesAFullQueue() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try open(directory)
            store.append((0..<1000).map { glucose(100 + Double($0 % 50), at: noon + .seconds($0 * 300)) })
            store.commit()
            let batch = try store.uploadBatch(for: "nightscout", limit: 288)
            try store.acknowledgeUploads(batch.items.map(\.id), for: "nightscout", at: noon)
        }
        let store = try open(directory)
        let batch = try store.uploadBatch(for: "nightscout", limit: 288)
        #expect(batch.status.queued == 712)
        #expect(batch.status.lastSuccess == noon)
        #expect(batch.status.oldest == noon + .seconds(288 * 300))
        #expect(batch.items.count == 288)
        guard case let .reading(first) = batch.items.first?.content else {
            Issue.record("no reading first")
            return
        }
        #expect(first.wallTime == noon + .seconds(288 * 300))
    }

    /// Disk full while queueing: the commit fails whole, so neither the rows nor their queue
    /// entries exist; the rows wait in memory, and the commit after space returns stores and
    /// queues every one of them.
    @Test func aFullDiskQueuesNothingAndLosesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon)])
        store.commit()
        let pages = try #require(try store.connection.scalarInt("PRAGMA page_count"))
        _ = try store.connection.scalarInt("PRAGMA max_page_count = \(pages)")
        store.append((1...3000).map { glucose(100 + Double($0 % 50), at: noon + .seconds($0 * 60)) })
        guard case let .failed(error, pending, _) = store.commit() else {
            Issue.record("a commit past max_page_count succeeded")
            return
        }
        guard case let .sqlite(sqliteError) = error else { Issue.record("\(error)"); return }
        #expect(sqliteError.isFull)
        #expect(pending == 3000)
        #expect(try store.uploadQueueStatus(for: "nightscout").queued == 1)
        _ = try store.connection.scalarInt("PRAGMA max_page_count = 1000000")
        #expect(store.commit() == .committed(rows: 3000, duplicates: 0))
        #expect(try store.uploadQueueStatus(for: "nightscout").queued == 3001)
        #expect(try store.check(full: true) == "ok")
    }

    /// Targets named at a start whose disk is full are written with the first commit that
    /// works, before its rows: those rows are queued.
    @Test func targetsRegisteredOnAFullDiskAreWrittenBeforeTheNextRows() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        try store.connection.execute("PRAGMA query_only = ON")
        store.registerUploadTargets(["nightscout"])
        store.append([glucose(120, at: noon)])
        guard case .failed = store.commit() else {
            Issue.record("committed while read-only")
            return
        }
        try store.connection.execute("PRAGMA query_only = OFF")
        #expect(store.commit() == .committed(rows: 1, duplicates: 0))
        #expect(try queued(store) == ["glucose 0"])
    }

    /// Retention deleting a row still queued takes its queue row with it, and says so in the
    /// count; an acknowledged row pruned counts nothing.
    @Test func pruningAQueuedRowDropsItAndCountsIt() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon - Self.day * 3), glucose(121, at: noon - Self.day * 3 + .seconds(300)), glucose(122, at: noon)])
        store.append(Calibration(device: dexcom, glucose: GlucoseConcentration(milligramsPerDeciliter: 104), wallTime: noon - Self.day * 3))
        store.commit()
        let first = try #require(try store.uploadBatch(for: "nightscout", limit: 1).items.first)
        try store.acknowledgeUploads([first.id], for: "nightscout", at: noon)
        let policy = RetentionPolicy(keep: [.glucose: Self.day], otherRows: Self.day)
        #expect(try store.prune(now: noon, policy: policy).deleted == 3)
        let status = try store.uploadQueueStatus(for: "nightscout")
        #expect(status.queued == 1)
        #expect(status.droppedUnsent == 2, "one glucose and one calibration went unsent; the acknowledged one is not counted")
        #expect(try queued(store) == ["glucose 0"])
    }

    /// A target no longer configured stops collecting and keeps what it had; configured
    /// again, it collects anew. Rows stored before a target existed are not queued for it.
    @Test func onlyConfiguredTargetsCollect() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try open(directory, targets: [])
            store.append([glucose(100, at: noon)])
            store.commit()
            #expect(try store.uploadQueueStatus(for: "nightscout") == UploadQueue.Status())
        }
        do {
            let store = try open(directory)
            store.append([glucose(110, at: noon + .seconds(300))])
            store.commit()
            #expect(try queued(store) == ["glucose 300"])
        }
        do {
            let store = try open(directory, targets: [])
            store.append([glucose(120, at: noon + .seconds(600))])
            store.commit()
            #expect(try queued(store) == ["glucose 300"], "kept, but no longer collecting")
        }
        let store = try open(directory)
        store.append([glucose(130, at: noon + .seconds(900))])
        store.commit()
        #expect(try queued(store) == ["glucose 300", "glucose 900"])
    }

    /// A row that no longer reads back (a file edited by hand) comes out as unreadable, so the
    /// uploader can drop it with a line instead of stalling on it; re-dating moves a queued
    /// reading in the queue's order.
    @Test func unreadableRowsAreSaidAndRedatedRowsMove() throws {
        let directory = try TemporaryDirectory()
        let store = try open(directory)
        store.append([glucose(120, at: noon), glucose(125, at: noon + .seconds(300))], receivedAt: MonotonicInstant(nanoseconds: 1_000))
        store.commit()
        try store.connection.execute("UPDATE readings SET trend = 'Sideways' WHERE value = 120")
        #expect(try queued(store) == ["unreadable: unknown trend \"Sideways\"", "glucose 300"])
        try store.redate(ClockJump(monotonic: MonotonicInstant(nanoseconds: 2_000), from: noon + .seconds(3600), to: noon))
        #expect(try store.uploadQueueStatus(for: "nightscout").oldest == noon - .seconds(3600))
    }
}
