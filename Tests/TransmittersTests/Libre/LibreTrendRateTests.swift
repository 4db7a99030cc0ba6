import Readings
import Testing
@testable import Transmitters

@Suite struct LibreTrendRateTests {
    static func samples(_ values: [Double]) -> [(minutesAgo: Int, glucose: GlucoseConcentration)] {
        values.enumerated().map { (minutesAgo: $0.offset, glucose: GlucoseConcentration(milligramsPerDeciliter: $0.element)) }
    }

    /// Newest first, rising 2 mg/dL each minute forwards in time: +2 mg/dL/min.
    @Test func rateOfARisingLine() throws {
        let rate = try #require(LibreTrendRate.rate(Self.samples((0..<16).map { 200 - 2 * Double($0) })))
        #expect(abs(rate - 2) < 1e-9)
    }

    @Test func tooFewPointsIsNoRate() {
        #expect(LibreTrendRate.rate(Self.samples([100, 100, 100, 100, 100, 100, 100])) == nil)
        #expect(LibreTrendRate.rate(Self.samples([100, 100, 100, 100, 100, 100, 100, 100])) == 0)
    }

    /// The real dump's trend (raw / 8.5, newest first): the least-squares slope over the 16
    /// minutes is +1.0704 mg/dL/min (numpy.polyfit on LibreFixtures.trendRaw), so FortyFiveUp.
    @Test func realDumpIsFortyFiveUp() throws {
        let rate = try #require(LibreTrendRate.rate(Self.samples(LibreFixtures.trendRaw.map { Double($0) / 8.5 })))
        #expect(abs(rate - 1.0704) < 0.0001)
        #expect(TrendDirection(milligramsPerDeciliterPerMinute: rate) == .fortyFiveUp)
    }
}
