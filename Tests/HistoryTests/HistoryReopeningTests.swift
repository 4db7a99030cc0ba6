import Alarms
import Clocks
import Readings
import Testing
@testable import History

/// What waits while the history cannot be opened, and when it is tried again.
@Suite struct HistoryReopeningTests {
    static func at(_ seconds: Int64) -> MonotonicInstant { .zero + .seconds(seconds) }

    static func heartRates(_ count: Int, from first: Int) -> [RecordedReading] {
        (0..<count).map { i in
            RecordedReading(device: "strap", value: .heartRate(BeatsPerMinute(UInt16(60 + (first + i) % 100)), contact: .detected),
                            wallTime: noon + .seconds(Int64(first + i)))
        }
    }

    @Test func attemptsBackOffFromTenSecondsToFiveMinutes() {
        var reopening = HistoryReopening(path: "/x/history.sqlite", failedAt: Self.at(100))
        #expect(reopening.attempts == 1)
        #expect(!reopening.isDue(at: Self.at(109)))
        #expect(reopening.isDue(at: Self.at(110)))
        var now = Self.at(110)
        var delays: [Duration] = []
        for _ in 0..<8 {
            reopening.failed(at: now)
            delays.append(reopening.nextAttempt - now)
            now = reopening.nextAttempt
        }
        #expect(delays == [20, 40, 80, 160, 300, 300, 300, 300].map { Duration.seconds($0) })
        #expect(reopening.attempts == 9)
    }

    @Test func whatWaitedIsWrittenInOrderWhenTheHistoryOpens() throws {
        let directory = try TemporaryDirectory()
        var reopening = HistoryReopening(path: directory.database, failedAt: Self.at(0))
        reopening.keep(.readings(Self.heartRates(3, from: 0), receivedAt: Self.at(1)))
        reopening.keep(.alarms([AlarmEvent(time: Self.at(2), kind: .glucose(.low), change: .raised(.medium))],
                               monotonicNow: Self.at(2), wallNow: noon + .seconds(2)))
        reopening.keep(.readings([], receivedAt: Self.at(3)))  // an event without readings keeps nothing
        reopening.keep(.readings(Self.heartRates(2, from: 3), receivedAt: Self.at(4)))
        #expect(reopening.waiting.count == 3)
        #expect(reopening.waitingRows == 6)

        let store = try HistoryStore.open(path: directory.database, bootID: "boot-1", now: noon)
        #expect(reopening.replay(into: store) == 6)
        #expect(reopening.waiting.isEmpty && reopening.waitingRows == 0)
        #expect(store.commit() == .committed(rows: 6, duplicates: 0))
        #expect(Array(store.readings()) == Self.heartRates(5, from: 0))
        #expect(try store.alarmEvents() == [RecordedAlarmEvent(kind: .glucose(.low), change: .raised(.medium), wallTime: noon + .seconds(2))])
    }

    /// Readings a transmitter dated on its own clock (a meter's records) wait with no reception
    /// instant, and a clock step applied once the history opens moves only the readings the
    /// board's clock dated.
    @Test func readingsDatedByTheirOwnClockWaitWithoutAReceptionInstantAndAreNotReDated() throws {
        let directory = try TemporaryDirectory()
        var reopening = HistoryReopening(path: directory.database, failedAt: Self.at(0))
        let boardDated = Self.heartRates(1, from: 0).map { var r = $0; r.wallTime = WallClockTime(secondsSinceEpoch: 5); return r }
        let meterDated = [RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: nil), wallTime: noon)]
        reopening.keep(.readings(boardDated, receivedAt: Self.at(5)))
        reopening.keep(.readings(meterDated, receivedAt: nil))
        #expect(reopening.waitingRows == 2)

        let store = try HistoryStore.open(path: directory.database, bootID: "boot-1", now: noon)
        #expect(reopening.replay(into: store) == 2)
        let jump = ClockJump(monotonic: Self.at(10), from: WallClockTime(secondsSinceEpoch: 10), to: noon + .seconds(60))
        #expect(try store.redate(jump) == 1)
        #expect(store.commit() == .committed(rows: 2, duplicates: 0))
        #expect(Array(store.readings()).map(\.wallTime) == [noon, noon + .seconds(55)])
    }

    @Test func theWaitIsBoundedAndTheOldestGoFirstCounted() throws {
        var reopening = HistoryReopening(path: "/x/history.sqlite", failedAt: Self.at(0), rowLimit: 10)
        for batch in 0..<5 { reopening.keep(.readings(Self.heartRates(4, from: batch * 4), receivedAt: Self.at(Int64(batch)))) }
        // 20 rows offered, 10 fit: the two newest batches stay whole, three older batches go.
        #expect(reopening.waitingRows == 8)
        #expect(reopening.dropped == 12)
        let directory = try TemporaryDirectory()
        let store = try HistoryStore.open(path: directory.database, bootID: "boot-1", now: noon)
        #expect(reopening.replay(into: store) == 8)
        store.commit()
        #expect(Array(store.readings()) == Self.heartRates(8, from: 12))
    }

    @Test func oneBatchLargerThanTheLimitIsStillKeptWhole() {
        // Splitting a batch would store half a notification; the bound holds from the next one.
        var reopening = HistoryReopening(path: "/x/history.sqlite", failedAt: Self.at(0), rowLimit: 3)
        reopening.keep(.readings(Self.heartRates(5, from: 0), receivedAt: Self.at(1)))
        #expect(reopening.waitingRows == 5 && reopening.dropped == 0)
        reopening.keep(.readings(Self.heartRates(1, from: 5), receivedAt: Self.at(2)))
        #expect(reopening.waitingRows == 1 && reopening.dropped == 5)
    }
}
