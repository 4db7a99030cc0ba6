import Readings
import Testing
@testable import Transmitters

@Suite struct LibreTrendRateTests {
    @Test(arguments: [
        (-12.0, TrendDirection.rateOutOfRange), (-3.6, .doubleDown), (-3.5, .doubleDown), (-3.4, .singleDown),
        (-2.0, .singleDown), (-1.5, .fortyFiveDown), (-1.0, .fortyFiveDown), (-0.99, .flat), (0, .flat),
        (0.99, .flat), (1.0, .fortyFiveUp), (1.99, .fortyFiveUp), (2.0, .singleUp), (3.49, .singleUp),
        (3.5, .doubleUp), (10, .doubleUp), (10.5, .rateOutOfRange), (.nan, .rateOutOfRange),
    ])
    func bands(rate: Double, direction: TrendDirection) {
        #expect(LibreTrendRate.direction(milligramsPerDeciliterPerMinute: rate) == direction)
    }

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
        #expect(LibreTrendRate.direction(milligramsPerDeciliterPerMinute: rate) == .fortyFiveUp)
    }
}
