@testable import App
import Clocks
import Readings
import Testing

/// The page's glucose window: only glucose, oldest first whatever order it came in, and bounded
/// in time and in count.
@Suite struct WebsiteRecentTests {
    static let now = WallClockTime(secondsSinceEpoch: 1_795_341_600)

    static func glucose(_ value: Double, at time: WallClockTime) -> RecordedReading {
        RecordedReading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: value), trend: nil), wallTime: time)
    }

    @Test func onlyGlucoseIsKeptOldestFirst() {
        var recent = Website.Recent()
        recent.add([Self.glucose(120, at: Self.now - .seconds(300)), Self.glucose(125, at: Self.now)], wallNow: Self.now)
        // A backfill after newer readings, and a heart rate, which is never kept.
        recent.add([Self.glucose(118, at: Self.now - .seconds(600)),
                    RecordedReading(device: "hr", value: .heartRate(BeatsPerMinute(60), contact: .notReported), wallTime: Self.now)],
                   wallNow: Self.now)
        #expect(recent.readings.map(\.wallTime) == [Self.now - .seconds(600), Self.now - .seconds(300), Self.now])
        #expect(recent.latestGlucose == Self.glucose(125, at: Self.now))
        #expect(recent.points(.glucose, since: Self.now - .seconds(400)).map(\.1) == [120, 125])
    }

    @Test func readingsOlderThanFourDaysAreForgotten() {
        var recent = Website.Recent()
        recent.add([Self.glucose(100, at: Self.now - .seconds(4 * 24 * 3600 + 1)), Self.glucose(101, at: Self.now - .seconds(4 * 24 * 3600 - 1))],
                   wallNow: Self.now)
        #expect(recent.readings.map(\.wallTime) == [Self.now - .seconds(4 * 24 * 3600 - 1)])
    }

    @Test func theWindowHoldsAtMostItsBound() {
        var recent = Website.Recent()
        let many = (0..<(Website.Recent.maximumCount + 100)).map { Self.glucose(100, at: Self.now - .seconds(Int64($0))) }
        recent.add(many, wallNow: Self.now)
        #expect(recent.readings.count == Website.Recent.maximumCount)
        #expect(recent.readings.last?.wallTime == Self.now, "the newest are kept")
    }
}
