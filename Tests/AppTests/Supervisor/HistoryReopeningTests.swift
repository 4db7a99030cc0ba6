import Alarms
import App
import Clocks
import Readings
import Testing

/// What waits while the history cannot be opened, and when it is tried again.
@Suite struct HistoryReopeningTests {
    static func at(_ seconds: Int64) -> MonotonicInstant { .zero + .seconds(seconds) }
    static let noon = WallClockTime(secondsSinceEpoch: 1_795_341_600)

    static func heartRates(_ count: Int, from first: Int) -> [RecordedReading] {
        (0..<count).map { i in
            RecordedReading(device: "strap", value: .heartRate(BeatsPerMinute(UInt16(60 + (first + i) % 100)), contact: .detected),
                            wallTime: noon + .seconds(Int64(first + i)))
        }
    }

    @Test func attemptsBackOffFromTenSecondsToFiveMinutes() {
        var reopening = HistoryReopening(failedAt: Self.at(100), rowLimit: 50_000)
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

    @Test func whatWaitedIsHandedOverInOrderOnce() {
        var reopening = HistoryReopening(failedAt: Self.at(0), rowLimit: 50_000)
        let alarm = AlarmEvent(time: Self.at(2), kind: .glucose(.low), change: .raised(.medium))
        reopening.keep(.readings(Self.heartRates(3, from: 0), receivedAt: Self.at(1)))
        reopening.keep(.alarms([alarm], monotonicNow: Self.at(2), wallNow: Self.noon + .seconds(2)))
        reopening.keep(.readings([], receivedAt: Self.at(3)))  // an event without readings keeps nothing
        reopening.keep(.readings(Self.heartRates(2, from: 3), receivedAt: nil))  // a meter's own dates
        #expect(reopening.waiting.count == 3)
        #expect(reopening.waitingRows == 6)
        #expect(reopening.takeWaiting() == [
            .readings(Self.heartRates(3, from: 0), receivedAt: Self.at(1)),
            .alarms([alarm], monotonicNow: Self.at(2), wallNow: Self.noon + .seconds(2)),
            .readings(Self.heartRates(2, from: 3), receivedAt: nil),
        ])
        #expect(reopening.waiting.isEmpty && reopening.waitingRows == 0)
    }

    @Test func theWaitIsBoundedAndTheOldestGoFirstCounted() {
        var reopening = HistoryReopening(failedAt: Self.at(0), rowLimit: 10)
        for batch in 0..<5 { reopening.keep(.readings(Self.heartRates(4, from: batch * 4), receivedAt: Self.at(Int64(batch)))) }
        // 20 rows offered, 10 fit: the two newest batches stay whole, three older batches go.
        #expect(reopening.waitingRows == 8)
        #expect(reopening.dropped == 12)
        #expect(reopening.takeWaiting() == [
            .readings(Self.heartRates(4, from: 12), receivedAt: Self.at(3)),
            .readings(Self.heartRates(4, from: 16), receivedAt: Self.at(4)),
        ])
    }

    @Test func oneBatchLargerThanTheLimitIsStillKeptWhole() {
        // Splitting a batch would store half a notification; the bound holds from the next one.
        var reopening = HistoryReopening(failedAt: Self.at(0), rowLimit: 3)
        reopening.keep(.readings(Self.heartRates(5, from: 0), receivedAt: Self.at(1)))
        #expect(reopening.waitingRows == 5 && reopening.dropped == 0)
        reopening.keep(.readings(Self.heartRates(1, from: 5), receivedAt: Self.at(2)))
        #expect(reopening.waitingRows == 1 && reopening.dropped == 5)
    }
}
