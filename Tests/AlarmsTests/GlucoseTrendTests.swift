import Clocks
import Readings
import Testing
@testable import Alarms

@Suite struct GlucoseTrendTests {
    func samples(_ values: [Double], every minutes: Double = 5) -> [(time: MonotonicInstant, value: GlucoseConcentration)] {
        values.enumerated().map { (time: minute(Double($0.offset) * minutes), value: GlucoseConcentration(milligramsPerDeciliter: $0.element)) }
    }

    @Test func fitsAStraightLine() throws {
        let trend = try #require(GlucoseTrend(samples([120, 110, 100, 90])))
        #expect(abs(trend.rate.milligramsPerDeciliterPerMinute - -2) < 1e-9)
        #expect(abs(trend.level.milligramsPerDeciliter - 90) < 1e-9)
        #expect(trend.time == minute(15))
        #expect(abs(trend.forecast(.seconds(20 * 60)).milligramsPerDeciliter - 50) < 1e-9)
    }

    @Test(arguments: [0, 1, 2, 3, 4])
    func ignoresOneNoisyReadingAnywhere(_ noisy: Int) throws {
        var values = [100.0, 100, 100, 100, 100]
        values[noisy] = 40
        let trend = try #require(GlucoseTrend(samples(values)))
        #expect(trend.rate.milligramsPerDeciliterPerMinute == 0)
        #expect(trend.level.milligramsPerDeciliter == 100)
    }

    @Test func needsFourReadingsInsideTheWindow() {
        #expect(GlucoseTrend(samples([100, 90, 80])) == nil)
        #expect(GlucoseTrend([]) == nil)
        // Four readings, but the first is 30 minutes before the latest: outside the 20-minute window.
        #expect(GlucoseTrend(samples([100, 90, 80, 70], every: 10)) == nil)
        #expect(GlucoseTrend(samples([100, 90, 80, 70], every: 20.0 / 3)) != nil)
    }

    @Test func readingsAtTheSameTimeDoNotDivideByZero() {
        let same = Array(repeating: (time: minute(0), value: GlucoseConcentration(milligramsPerDeciliter: 90)), count: 4)
        #expect(GlucoseTrend(same) == nil)
    }

    @Test func rateConvertsFromMillimolesPerLitre() {
        #expect(GlucoseRate(millimolesPerLiterPerMinute: 1).milligramsPerDeciliterPerMinute == 18.0182)
    }
}
