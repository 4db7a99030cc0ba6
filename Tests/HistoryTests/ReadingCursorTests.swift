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
