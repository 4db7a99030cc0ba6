import Readings
import Testing
@testable import Transmitters

struct DexcomTrendTests {
    /// Each boundary of the convention (mg/dL/min = byte / 10), both sides.
    @Test(arguments: [
        (Int8(-128), TrendDirection.notComputable), (127, .notComputable),
        (-127, .doubleDown), (-30, .doubleDown), (-29, .singleDown), (-20, .singleDown),
        (-19, .fortyFiveDown), (-10, .fortyFiveDown), (-9, .flat), (0, .flat), (9, .flat),
        (10, .fortyFiveUp), (19, .fortyFiveUp), (20, .singleUp), (29, .singleUp), (30, .doubleUp), (126, .doubleUp),
    ])
    func direction(_ byte: Int8, _ expected: TrendDirection) {
        #expect(Dexcom.Trend.direction(trendByte: byte) == expected)
    }

    @Test func rate() {
        #expect(Dexcom.Trend.rate(trendByte: -29) == -2.9)
        #expect(Dexcom.Trend.rate(trendByte: 127) == nil)
    }
}
