import Readings
import Testing
@testable import Transmitters

struct DexcomTrendTests {
    /// The trend byte is 0.1 mg/dL/min (CGMBLEKit divides it by 10; docs/trend-arrows.md), so each edge of xDrip+'s
    /// `BgReading.slopeName` table (−3.5, −2, −1, 1, 2, 3.5 mg/dL/min) is a whole byte: the
    /// edge belongs to the lower band, one tenth above it to the next. 127 and −128 are no rate.
    @Test(arguments: [
        (Int8(-128), TrendDirection.notComputable), (127, .notComputable),
        (-127, .doubleDown), (-35, .doubleDown), (-34, .singleDown), (-20, .singleDown),
        (-19, .fortyFiveDown), (-10, .fortyFiveDown), (-9, .flat), (0, .flat), (10, .flat),
        (11, .fortyFiveUp), (20, .fortyFiveUp), (21, .singleUp), (35, .singleUp), (36, .doubleUp), (126, .doubleUp),
    ])
    func direction(_ byte: Int8, _ expected: TrendDirection) {
        #expect(Dexcom.Trend.direction(trendByte: byte) == expected)
    }

    @Test func rate() {
        #expect(Dexcom.Trend.rate(trendByte: -29) == -2.9)
        #expect(Dexcom.Trend.rate(trendByte: -35) == -3.5)
        #expect(Dexcom.Trend.rate(trendByte: 127) == nil)
        #expect(Dexcom.Trend.rate(trendByte: -128) == nil)
    }
}
