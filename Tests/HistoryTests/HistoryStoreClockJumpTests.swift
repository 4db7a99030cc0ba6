import App
import Clocks
import Readings
import Testing
@testable import History

/// The wall clock jumping a day either way, seen by the history on a virtual clock:
/// retention pruning after a jump ahead must not delete a day of readings, and rows are dated
/// as the appliance dates them (a set clock's step is not re-dated: only the first setting of
/// the clock is, see HistoryStoreRedatingTests). `vigil run` prunes at
/// `WallClockWatch.retentionTime(wall:)`, which these tests use the same way.
@Suite struct HistoryStoreClockJumpTests {
    static let day = Duration.seconds(86_400)

    /// 31 days up to `noon`: a heart rate every hour (kept 30 days) and a glucose every hour.
    func thirtyOneDays(_ store: HistoryStore) {
        var rows: [RecordedReading] = []
        for hour in 0..<(31 * 24) {
            let at = noon - Self.day * 31 + .seconds(hour * 3600 + 1800)
            rows.append(RecordedReading(device: "h", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: at))
            rows.append(RecordedReading(device: "g", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 110), trend: .flat), wallTime: at))
        }
        store.append(rows)
        #expect(store.commit() == .committed(rows: rows.count, duplicates: 0))
    }

    /// A history holding `thirtyOneDays`, its directory (kept alive with it), and the
    /// monotonic instant the watch first sees noon at.
    func thirtyOneDaysStore() throws -> (TemporaryDirectory, HistoryStore, MonotonicInstant) {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        thirtyOneDays(store)
        return (directory, store, MonotonicInstant(nanoseconds: 1_000_000_000))
    }

    /// A watch whose first reading is noon at `start`.
    func watchingFromNoon(at start: MonotonicInstant) -> WallClockWatch {
        var watch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
        _ = watch.observe(monotonic: start, wall: noon)
        return watch
    }

    @Test func aJumpOfADayAheadDoesNotPruneADayOfHeartRate() throws {
        let (directory, store, start) = try thirtyOneDaysStore()
        defer { withExtendedLifetime(directory) {} }
        var watch = watchingFromNoon(at: start)
        #expect(try store.prune(now: watch.retentionTime(wall: noon), budget: 10_000).deleted == 24, "the 31st day goes, as every day")
        let before = try store.counts().readings
        #expect(before == [.heartRate: 720, .glucose: 744])

        // A minute later the clock reads a day ahead.
        let jumped = noon + Self.day + .seconds(60)
        let stepAhead = watch.observe(monotonic: start + .seconds(60), wall: jumped)
        let step = try #require(stepAhead)
        #expect(!step.setsTheClock)
        let outcome = try store.prune(now: watch.retentionTime(wall: jumped), budget: 10_000)
        #expect(outcome.deleted == 0, "the jump made \(outcome.deleted) rows look old")
        #expect(try store.counts().readings == before)

        // What the plain wall clock would have done: a day of heart rate gone. (Why the watch.)
        #expect(try store.prune(now: jumped, budget: 10_000).deleted == 24)
    }

    /// `vigil run` keeps the watch's shift in the state directory (`clock-shift`): after a
    /// restart on the clock that is still a day ahead, pruning still spares that day.
    @Test func aJumpOfADayAheadThenARestartStillDoesNotPruneADay() throws {
        let (directory, store, start) = try thirtyOneDaysStore()
        defer { withExtendedLifetime(directory) {} }
        var watch = watchingFromNoon(at: start)
        _ = try store.prune(now: watch.retentionTime(wall: noon), budget: 10_000)
        let jumped = noon + Self.day + .seconds(60)
        _ = watch.observe(monotonic: start + .seconds(60), wall: jumped)
        let saved = watch.shiftText

        // The next boot: a new monotonic clock, the wall clock still a day ahead.
        let later = jumped + .seconds(600)
        var restarted = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime,
                                       unexplainedShift: try #require(WallClockWatch.shift(parsing: saved)))
        #expect(restarted.observe(monotonic: MonotonicInstant(nanoseconds: 5_000_000_000), wall: later) == nil)
        let outcome = try store.prune(now: restarted.retentionTime(wall: later), budget: 10_000)
        #expect(outcome.deleted == 0, "the restart made \(outcome.deleted) rows look old")
        #expect(try store.counts().readings == [.heartRate: 720, .glucose: 744])
    }

    @Test func aJumpOfADayBackDeletesNothingExtra() throws {
        let (directory, store, start) = try thirtyOneDaysStore()
        defer { withExtendedLifetime(directory) {} }
        var watch = watchingFromNoon(at: start)
        let back = noon - Self.day + .seconds(60)
        let stepBack = watch.observe(monotonic: start + .seconds(60), wall: back)
        #expect(stepBack != nil)
        #expect(try store.prune(now: watch.retentionTime(wall: back), budget: 10_000).deleted == 0,
                "a day back: the 31st day is 30 days old on this clock and stays until it is older")
        #expect(try store.counts().readings == [.heartRate: 744, .glucose: 744])
    }

    /// Rows received across the step keep the dates they were given: before it on the old
    /// clock, after it on the new, and none is lost or merged; the export order follows the
    /// wall times (the readings a day ahead come last, and after a step back they sort first).
    @Test(arguments: [Duration.seconds(86_400), .seconds(-86_400)])
    func rowsAcrossAStepKeepTheirDates(step: Duration) throws {
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "b1", now: noon)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        var watch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
        var expected: [WallClockTime] = []
        for minute in Int64(0)..<6 {
            let monotonic = start + .seconds(minute * 300)
            let wall = noon + .seconds(minute * 300) + (minute >= 3 ? step : .zero)
            if let jump = watch.observe(monotonic: monotonic, wall: wall), jump.setsTheClock {
                Issue.record("a set clock's step was taken for the first setting")
            }
            store.append([RecordedReading(device: "g", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(100 + minute)), trend: .flat),
                                          wallTime: wall, sensorStamp: SensorStamp(run: "", count: minute * 300))], receivedAt: monotonic)
            #expect(store.commit() == .committed(rows: 1, duplicates: 0))
            expected.append(wall)
        }
        let stored = Array(store.readings())
        #expect(stored.count == 6)
        #expect(stored.map(\.wallTime) == expected.sorted())
        #expect(Set(stored.compactMap(\.sensorStamp?.count)) == Set((0..<6).map { Int64($0) * 300 }))
    }
}
