import Clocks
import Readings
import Testing
@testable import Alarms

@Suite struct AlarmConfigurationTests {
    @Test func fieldDefaults() {
        let c = AlarmConfiguration()
        #expect(c.signalLossAfter == .seconds(20 * 60))
        #expect(c.escalateAfter == .seconds(5 * 60))
        let t = c.thresholds
        #expect(t.urgentLow.milligramsPerDeciliter == 55)
        #expect(t.urgentLowSoonHorizon == .seconds(20 * 60))
        #expect(t.low?.milligramsPerDeciliter == 70)
        #expect(t.high?.milligramsPerDeciliter == 250)
        #expect(t.urgentHigh?.milligramsPerDeciliter == 300)
        #expect(t.fallingFast == nil && t.risingFast == nil)
    }

    @Test(arguments: [(45, 30), (30, 30), (10, 10), (0, 1)])
    func signalLossIsAtMostThirtyMinutes(_ requested: Int, _ granted: Int) {
        #expect(AlarmConfiguration(signalLossAfter: .seconds(requested * 60)).signalLossAfter == .seconds(granted * 60))
    }

    /// 2026-11-22T00:00:00Z.
    let midnightUTC = WallClockTime(secondsSinceEpoch: WallClockTime.days(year: 2026, month: 11, day: 22) * 86400)

    @Test(arguments: [
        // (UTC hour, minute, UTC offset in hours, night profile applies)
        (20, 59, 1, false), (21, 0, 1, true), (5, 59, 1, true), (6, 0, 1, false),
        (12, 0, -11, true), (23, 30, -5, false), (3, 0, 0, true), (7, 0, 0, false),
    ])
    func nightProfileFollowsLocalTimeAcrossMidnight(_ hour: Int, _ minute: Int, _ offset: Int, _ night: Bool) {
        let nightThresholds = GlucoseThresholds(low: GlucoseConcentration(millimolesPerLiter: 4.4))
        let c = AlarmConfiguration(
            profiles: [TimedProfile(start: TimeOfDay(hour: 22)!, end: TimeOfDay(hour: 7)!, thresholds: nightThresholds)],
            utcOffset: .seconds(offset * 3600))
        let time = midnightUTC + .seconds(hour * 3600 + minute * 60)
        #expect(c.thresholds(at: time) == (night ? nightThresholds : .standard))
        #expect(c.thresholds(at: nil) == .standard)
    }

    @Test func timeOfDayIsValidated() {
        #expect(TimeOfDay(hour: 24) == nil)
        #expect(TimeOfDay(hour: 7, minute: 60) == nil)
        #expect(TimeOfDay(hour: -1) == nil)
        #expect(TimeOfDay(hour: 7, minute: 5)?.description == "07:05")
        #expect(TimeOfDay(hour: 23, minute: 59)?.minutesAfterMidnight == 1439)
    }
}
