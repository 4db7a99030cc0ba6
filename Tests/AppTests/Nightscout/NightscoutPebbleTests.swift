import Clocks
import Testing
@testable import App

/// The bgnow delta of `lib/plugins/bgnow.js` on hand-made series (newest first).
@Suite struct NightscoutPebbleTests {
    typealias SGV = Nightscout.Pebble.SGV
    let now = NightscoutFixtures.now

    func sgv(_ mgdL: Int64, minutesAgo: Double) -> SGV {
        SGV(mgdL: mgdL, direction: "Flat", date: now.millisecondsSinceEpoch - Int64(minutesAgo * 60_000))
    }

    @Test func theNewestBucketAgainstThePreviousOne() {
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0), sgv(112, minutesAgo: 5)], now: now)?.milligrams == 8)
        // Two readings in one bucket are averaged.
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0), sgv(110, minutesAgo: 1), sgv(100, minutesAgo: 5)], now: now)?.milligrams == 15)
    }

    @Test func aGapOverNineMinutesIsScaledToFive() {
        // 20 mg/dL over 15 minutes: 6.67 per 5, rounded half up.
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0), sgv(100, minutesAgo: 15)], now: now)?.milligrams == 7)
    }

    @Test func nothingToCompareIsNoDelta() {
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0)], now: now) == nil)
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0), sgv(100, minutesAgo: 30)], now: now) == nil)
        #expect(Nightscout.Pebble.delta([], now: now) == nil)
        // Readings dated in the future are passed over; values of 39 and below are codes.
        #expect(Nightscout.Pebble.delta([sgv(300, minutesAgo: -5), sgv(120, minutesAgo: 0), sgv(110, minutesAgo: 5)], now: now)?.milligrams == 10)
        #expect(Nightscout.Pebble.delta([sgv(120, minutesAgo: 0), sgv(39, minutesAgo: 5)], now: now) == nil)
    }

    @Test func millimolesAsNightscoutWritesThem() {
        #expect(Nightscout.Pebble.millimolesText(120) == "6.7")
        #expect(Nightscout.Pebble.millimolesText(90) == "5.0")
        #expect(Nightscout.Pebble.oneDecimal(-0.3) == "-0.3")
        #expect(Nightscout.Pebble.delta([sgv(100, minutesAgo: 0), sgv(112, minutesAgo: 5)], now: now)?.millimoles == -0.6)
    }

    @Test func trendNumbersAreThePebbles() {
        #expect(Nightscout.Pebble.trends["DoubleUp"] == 1 && Nightscout.Pebble.trends["DoubleDown"] == 7)
        #expect(Nightscout.Pebble.trends["TripleUp"] == nil)  // sent as 8
    }
}
