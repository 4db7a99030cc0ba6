import Clocks
import Readings
import Testing
@testable import History

@Suite struct HistoryStoreRetentionTests {
    static let day = Duration.seconds(86_400)

    /// 40 days: a glucose reading and a heart-rate reading every hour.
    func fortyDays(_ store: HistoryStore) {
        var rows: [RecordedReading] = []
        for hour in 0..<(40 * 24) {
            let at = noon - Self.day * 40 + .seconds(hour * 3600)
            rows.append(RecordedReading(device: "g", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 100), trend: .flat), wallTime: at))
            rows.append(RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: at))
        }
        store.append(rows)
        store.commit()
    }

    /// The standard policy keeps 30 days of heart rate and all 40 days of glucose; a budget of
    /// 100 rows takes three calls for the 240 heart-rate rows past 30 days.
    @Test func deletesPastRetentionWithinTheBudget() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        fortyDays(store)
        let first = try store.prune(now: noon, budget: 100)
        #expect(first.deleted == 100)
        #expect(!first.finished)
        #expect(try store.counts().readings == [.glucose: 960, .heartRate: 860])
        #expect(try store.prune(now: noon, budget: 100).deleted == 100)
        let third = try store.prune(now: noon, budget: 100)
        #expect(third.deleted == 40)
        #expect(third.finished)
        #expect(try store.counts().readings == [.glucose: 960, .heartRate: 720])
        let oldestHeart = Array(store.readings(HistoryQuery(kind: .heartRate))).first?.wallTime
        #expect(oldestHeart == noon - Self.day * 30, "exactly 30 days is kept")
        #expect(try store.prune(now: noon, budget: 100) == PruneOutcome(deleted: 0, finished: true, pagesFreed: 0))
    }

    @Test func alarmEventsAndCalibrationsAgeOutToo() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        store.append([RecordedAlarmEvent(kind: .urgentLow, change: .cleared, wallTime: noon - Self.day * 400),
                      RecordedAlarmEvent(kind: .urgentLow, change: .cleared, wallTime: noon - Self.day * 10)])
        store.append(Calibration(device: "g", glucose: GlucoseConcentration(milligramsPerDeciliter: 90), wallTime: noon - Self.day * 366))
        store.commit()
        #expect(try store.prune(now: noon).deleted == 2)
        #expect(try store.alarmEvents().map(\.wallTime) == [noon - Self.day * 10])
        #expect(try store.calibrations().isEmpty)
    }

    /// Rows dated by a clock not set yet (a board that booted in 1970 and whose re-date was
    /// missed: the clock set while Vigil was stopped) are not aged: they are not 56 years old,
    /// their age is unknown. Rows of a set clock past their retention still go, and without
    /// the floor (the policy's default) the 1970 rows go too.
    @Test func rowsOfAnUnsetClockAreNotAged() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let unset = WallClockTime(secondsSinceEpoch: 86_400)
        let believable = noon - Self.day * 1_000
        func heartRate(at time: WallClockTime) -> RecordedReading {
            RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: time)
        }
        store.append([heartRate(at: unset), heartRate(at: unset + .seconds(1)), heartRate(at: noon - Self.day * 31), heartRate(at: noon)])
        store.append([RecordedAlarmEvent(kind: .urgentLow, change: .cleared, wallTime: unset)])
        store.commit()
        let floored = RetentionPolicy(keep: RetentionPolicy.standard.keep, otherRows: RetentionPolicy.standard.otherRows, unsetClockBefore: believable)
        #expect(try store.prune(now: noon, policy: floored).deleted == 1)
        #expect(Array(store.readings()).map(\.wallTime) == [unset, unset + .seconds(1), noon])
        #expect(try store.alarmEvents().map(\.wallTime) == [unset])
        #expect(try store.prune(now: noon, policy: .standard).deleted == 3)
        #expect(Array(store.readings()).map(\.wallTime) == [noon])
    }

    /// A size cap below the file: heart rate goes first, oldest first, and glucose only once
    /// no heart rate is left; the file gives its pages back (incremental vacuum). Four days of
    /// a realistic mix: a glucose reading every 5 minutes and heart rate every 10 seconds.
    @Test func theSizeCapDeletesOldestHeartRateFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let start = noon - Self.day * 4
        var rows: [RecordedReading] = []
        for slot in 0..<(4 * 288) {
            let at = start + .seconds(slot * 300)
            rows.append(RecordedReading(device: "g", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 100), trend: .flat), wallTime: at))
            for beat in 0..<30 {
                rows.append(RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: at + .seconds(beat * 10)))
            }
        }
        store.append(rows)
        store.commit()
        let used = try store.counts().usedBytes
        let pagesBefore = try #require(try store.connection.scalarInt("PRAGMA page_count"))
        var policy = RetentionPolicy.standard
        policy.maximumBytes = used / 2
        var outcome = try store.prune(now: noon, policy: policy, budget: 1000)
        #expect(outcome.deleted == 1000)
        #expect(!outcome.finished)
        while !outcome.finished { outcome = try store.prune(now: noon, policy: policy, budget: 1000) }
        let counts = try store.counts()
        #expect(counts.usedBytes <= used / 2)
        #expect(counts.readings[.glucose] == 4 * 288, "glucose untouched while heart rate remains")
        let heart = Array(store.readings(HistoryQuery(kind: .heartRate)))
        #expect(heart.count < 4 * 288 * 30)
        #expect(heart.count > 4 * 288 * 30 / 4)
        #expect(heart.first.map { $0.wallTime > start } == true, "the oldest heart rate went")
        #expect(heart.last?.wallTime == start + .seconds((4 * 288 - 1) * 300 + 290), "the newest heart rate is kept")
        #expect(try #require(try store.connection.scalarInt("PRAGMA page_count")) < pagesBefore * 2 / 3, "the file shrank")

        // A cap below the glucose alone (20 KB above an empty history's tables and indexes):
        // once heart rate is gone, the oldest glucose goes.
        let empty = try TemporaryDirectory()
        let cap = try HistoryStore.open(path: empty.database, bootID: "b1", now: noon).counts().usedBytes + 20 * 1024
        policy.maximumBytes = cap
        outcome = try store.prune(now: noon, policy: policy, budget: 1_000_000)
        #expect(outcome.finished)
        #expect(try store.counts().readings[.heartRate] == nil)
        let glucose = Array(store.readings(HistoryQuery(kind: .glucose)))
        #expect(glucose.count < 4 * 288)
        #expect(glucose.last?.wallTime == start + .seconds((4 * 288 - 1) * 300))
        #expect(try store.counts().usedBytes <= cap)
        #expect(glucose.count > 100)
        #expect(try store.check(full: true) == "ok")
    }
}
