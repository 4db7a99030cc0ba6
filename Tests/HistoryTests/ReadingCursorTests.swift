import Clocks
import Readings
import Testing
@testable import History

@Suite struct ReadingCursorTests {
    /// The runner keeps committing every turn while a serial export streams: a cursor open
    /// across commits carries on without an error and still ends.
    @Test func aCursorOpenAcrossCommitsKeepsWorking() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        store.append((0..<500).map { RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon + .seconds($0)) })
        store.commit()
        let cursor = store.readings(HistoryQuery(until: noon + .seconds(500)))
        var seen = 0
        while let reading = cursor.next() {
            #expect(reading.wallTime == noon + .seconds(seen))
            seen += 1
            if seen % 100 == 0 {
                store.append([RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(61), contact: .detected), wallTime: noon + .seconds(10_000 + seen))])
                #expect(store.commit() == .committed(rows: 1, duplicates: 0))
            }
        }
        #expect(cursor.error == nil)
        #expect(seen == 500)
        #expect(try store.counts().totalReadings == 505)
    }

    /// A one-kind window is a search of readings_by_kind_wall_time, ordered as the index is;
    /// every kind at once goes through readings_by_wall_time. Neither sorts.
    @Test func aOneKindWindowSearchesTheKindIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        func plan(oneKind: Bool) throws -> String {
            let explain = try store.connection.prepare("EXPLAIN QUERY PLAN " + ReadingCursor.select(oneKind: oneKind))
            var details: [String] = []
            while try explain.step() { details.append(explain.text(3) ?? "") }
            return details.joined(separator: "; ")
        }
        let oneKind = try plan(oneKind: true)
        #expect(oneKind.contains("SEARCH readings USING INDEX readings_by_kind_wall_time (kind=? AND wall_time>? AND wall_time<?)"), "\(oneKind)")
        #expect(!oneKind.contains("TEMP B-TREE"), "\(oneKind)")
        let everyKind = try plan(oneKind: false)
        #expect(everyKind.contains("USING INDEX readings_by_wall_time"), "\(everyKind)")
        #expect(!everyKind.contains("TEMP B-TREE"), "\(everyKind)")
    }

    /// Pages of one kind among others at the same times: every row of that kind once, in order.
    @Test func pagesOfOneKindGiveEveryRowOfItOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        var rows: [RecordedReading] = []
        for second in 0..<90 {
            let at = noon + .seconds(Int64(second))
            let bpm = BeatsPerMinute(UInt16(60 + second % 40))
            rows.append(RecordedReading(device: "h", value: .heartRate(bpm, contact: .detected), wallTime: at))
            rows.append(RecordedReading(device: "t", value: .temperature(Temperature(degreesCelsius: Double(second) / 10)), wallTime: at))
            rows.append(RecordedReading(device: "u", value: .temperature(Temperature(degreesCelsius: Double(second) / 20)), wallTime: at))
        }
        store.append(rows)
        store.commit()
        let query = HistoryQuery(since: noon + .seconds(10), kind: .temperature)
        let whole = Array(store.readings(query))
        #expect(whole.count == 160)
        #expect(whole == Array(store.readings(HistoryQuery(since: noon + .seconds(10)))).filter { $0.value.kind == .temperature })
        var paged: [RecordedReading] = []
        var position: ReadingPosition?
        while true {
            let cursor = store.readings(query, after: position)
            var page = 0
            while page < 7, let reading = cursor.next() { paged.append(reading); page += 1 }
            #expect(cursor.error == nil)
            if page == 0 { break }
            position = cursor.position
        }
        #expect(paged == whole)
    }

    /// Pages that each start after where the last ended (a position, not an open statement)
    /// give every row once, in order, whatever the page size, also across rows that share a
    /// wall time; rows committed between pages come in when they sort after the page.
    @Test(arguments: [1, 3, 7, 64])
    func pagesAfterAPositionGiveEveryRowOnceInOrder(pageSize: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        // Three readings at each second: ties in wall time, told apart by row id.
        store.append((0..<60).flatMap { second in
            ["a", "b", "c"].map { device in
                RecordedReading(device: DeviceID(device), value: .heartRate(BeatsPerMinute(UInt16(60 + second)), contact: .detected),
                                wallTime: noon + .seconds(Int64(second)))
            }
        })
        store.commit()
        let whole = Array(store.readings(.everything))
        var paged: [RecordedReading] = []
        var position: ReadingPosition?
        var pages = 0
        while true {
            let cursor = store.readings(.everything, after: position)
            var page: [RecordedReading] = []
            while page.count < pageSize, let reading = cursor.next() { page.append(reading) }
            #expect(cursor.error == nil)
            paged += page
            position = cursor.position
            pages += 1
            if pages == 1 {
                // One after everything (comes in), one before the page (stays out).
                store.append([RecordedReading(device: "late", value: .heartRate(BeatsPerMinute(99), contact: .detected), wallTime: noon + .seconds(100)),
                              RecordedReading(device: "early", value: .heartRate(BeatsPerMinute(98), contact: .detected), wallTime: noon - .seconds(1))])
                store.commit()
            }
            if page.count < pageSize { break }
        }
        #expect(paged.count == whole.count + 1)
        #expect(Array(paged.prefix(whole.count)) == whole)
        #expect(paged.last?.device == "late")
    }

    /// Why exports page by position: a cursor mid-way holds a read snapshot, and while it does
    /// no checkpoint can reset the WAL (the appliance's commits would grow it for as long as a
    /// stalled serial client kept the export open). Once the cursor of a page is gone, one can.
    @Test func aCursorMidWayHoldsTheWALAndOneGoneDoesNot() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        store.append((0..<200).map { RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: noon + .seconds($0)) })
        store.commit()
        let checkpointer = try SQLite.Connection(path: directory.database, busyTimeoutMilliseconds: 0)
        // PRAGMA wal_checkpoint answers (busy, log frames, checkpointed frames).
        func truncate() throws -> (busy: Int64, log: Int64) {
            let statement = try checkpointer.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = try statement.step()
            return (statement.int64(0), statement.int64(1))
        }
        var cursor: ReadingCursor? = store.readings(.everything)
        for _ in 0..<10 { _ = cursor?.next() }
        let position = cursor?.position
        #expect(try truncate().busy == 1, "the WAL was reset under an open read")
        cursor = nil
        let reset = try truncate()
        #expect(reset.busy == 0 && reset.log == 0, "\(reset)")
        // The next page, from the position, goes on where the first ended.
        #expect(store.readings(.everything, after: position).next()?.wallTime == noon + .seconds(10))
    }
}
