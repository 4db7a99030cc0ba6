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
}
