import Clocks
import Readings
import Testing
@testable import Alarms

/// `AlarmEngine.GlucoseSample` from a `Reading` (GlucoseSample.swift).
@Suite struct GlucoseSampleTests {
    let monotonicNow = minute(100)
    let wallNow = WallClockTime(secondsSinceEpoch: 1_795_000_000)

    @Test func monotonicReadingGetsItsWallClockTime() throws {
        let reading = Reading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 88), trend: .flat),
                              time: .monotonic(minute(95)))
        let sample = try #require(AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: wallNow))
        #expect(sample.device == "dexcom")
        #expect(sample.concentration.milligramsPerDeciliter == 88)
        #expect(sample.trend == .flat)
        #expect(sample.measuredAt == minute(95))
        #expect(sample.wallClockTime == wallNow - .seconds(300))
        #expect(AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: nil)?.wallClockTime == nil)
    }

    @Test func wallClockReadingIsPlacedOnTheMonotonicClock() throws {
        let reading = Reading(device: "meter", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 60), trend: nil),
                              time: .wallClock(wallNow - .seconds(600)))
        let sample = try #require(AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: wallNow))
        #expect(sample.measuredAt == minute(90))
        #expect(sample.wallClockTime == wallNow - .seconds(600))
        #expect(sample.trend == nil)
        #expect(AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: nil) == nil)
    }

    @Test func otherReadingsAreNotGlucoseSamples() {
        let reading = Reading(device: "hr1", value: .heartRate(BeatsPerMinute(60), contact: .detected), time: .monotonic(minute(1)))
        #expect(AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: wallNow) == nil)
    }
}
