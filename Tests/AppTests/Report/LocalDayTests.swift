import Clocks
import Readings
import Testing
@testable import App

@Suite struct LocalDayTests {
    static let midnight = WallClockTime(secondsSinceEpoch: 1_795_305_600)  // 2026-11-22T00:00Z

    static func glucose(_ mgdL: Double, secondsAfterMidnightUTC: Int64) -> RecordedReading {
        RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: nil),
                        wallTime: midnight + .seconds(secondsAfterMidnightUTC))
    }

    @Test func groupsByLocalDateAndOrdersPoints() {
        // At UTC−05:00, 03:00Z is 22:00 local on the 21st; 05:30Z is 00:30 local on the 22nd.
        let readings = [Self.glucose(120, secondsAfterMidnightUTC: 5 * 3600 + 1800), Self.glucose(110, secondsAfterMidnightUTC: 3 * 3600),
                        Self.glucose(115, secondsAfterMidnightUTC: 3 * 3600 + 330),
                        RecordedReading(device: "hr1", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: Self.midnight)]
        let days = LocalDay.days(of: readings, utcOffset: .seconds(-5 * 3600))
        #expect(days.map(\.date) == ["2026-11-21", "2026-11-22"])
        #expect(days[0].dayNumber + 1 == days[1].dayNumber)
        #expect(days[0].points == [LocalDay.Point(minuteOfDay: 1320, milligramsPerDeciliter: 110), LocalDay.Point(minuteOfDay: 1325.5, milligramsPerDeciliter: 115)])
        #expect(days[1].points == [LocalDay.Point(minuteOfDay: 30, milligramsPerDeciliter: 120)])
    }

    @Test func gapsLongerThanTwentyMinutesBreakTheLine() {
        let minutes: [Int64] = [0, 5, 10, 30, 51, 56]  // 10→30 is 20 (kept), 30→51 is 21 (broken)
        let day = LocalDay.days(of: minutes.map { Self.glucose(100, secondsAfterMidnightUTC: $0 * 60) }, utcOffset: .zero)[0]
        #expect(day.segments.map { $0.map(\.minuteOfDay) } == [[0, 5, 10, 30], [51, 56]])
    }
}
