import Clocks
import Readings
import Testing
@testable import App

/// The appliance's memory of what it handed on: each reading once, by the sensor's stamp, or
/// for unstamped sensor glucose by value within 30 s on the same clock.
struct DeliveredReadingsTests {
    static let t0 = MonotonicInstant(nanoseconds: 5_000_000_000_000)

    static func glucose(_ mgdl: Double, at time: Reading.Time, stamp: SensorStamp? = nil) -> Reading {
        Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: .flat), time: time, sensorStamp: stamp)
    }

    @Test func aStampedReadingIsHandedOnOnceHoweverItsTimeMoved() {
        var delivered = DeliveredReadings()
        let stamp = SensorStamp(run: "8112AB", count: 9_990)
        let a1 = delivered.admit(Self.glucose(123, at: .monotonic(Self.t0), stamp: stamp))
        #expect(a1)
        // The same dex time re-read a second later, dated 3 ms apart: the same reading.
        let a2 = delivered.admit(Self.glucose(123, at: .monotonic(Self.t0 + .milliseconds(3)), stamp: stamp))
        #expect(!a2)
        // Another count, or the same count from another transmitter (a new one counts from 0
        // again): other readings.
        let a3 = delivered.admit(Self.glucose(123, at: .monotonic(Self.t0 + .seconds(300)), stamp: SensorStamp(run: "8112AB", count: 10_290)))
        #expect(a3)
        let a4 = delivered.admit(Self.glucose(123, at: .monotonic(Self.t0), stamp: SensorStamp(run: "8134CD", count: 9_990)))
        #expect(a4)
    }

    @Test func unstampedGlucoseIsOneReadingWithinThirtySecondsOfTheSameValue() {
        var delivered = DeliveredReadings()
        let a5 = delivered.admit(Self.glucose(140, at: .monotonic(Self.t0)))
        #expect(a5)
        let a6 = delivered.admit(Self.glucose(140, at: .monotonic(Self.t0 + .seconds(30))))
        #expect(!a6)
        let a7 = delivered.admit(Self.glucose(140, at: .monotonic(Self.t0 - .seconds(29))))
        #expect(!a7)
        let a8 = delivered.admit(Self.glucose(140, at: .monotonic(Self.t0 + .seconds(31))))
        #expect(a8)  // a minute's reading apart
        let a9 = delivered.admit(Self.glucose(141, at: .monotonic(Self.t0 + .seconds(1))))
        #expect(a9)  // another value
        // Dated on the wall clock: never compared with monotonic dates.
        let a10 = delivered.admit(Self.glucose(140, at: .wallClock(WallClockTime(secondsSinceEpoch: 1_795_000_000))))
        #expect(a10)
    }

    @Test func otherKindsWithoutAStampAreAlwaysNew() {
        var delivered = DeliveredReadings()
        let rate = Reading(device: "strap", value: .heartRate(BeatsPerMinute(60), contact: .detected), time: .monotonic(Self.t0))
        let a11 = delivered.admit(rate)
        #expect(a11)
        let a12 = delivered.admit(rate)
        #expect(a12)  // a steady heart: the same value again is a new beat
    }

    @Test func memoryIsBoundedAndKeepsTheNewest() {
        var delivered = DeliveredReadings()
        for count in 0..<Int64(DeliveredReadings.capacity + 10) {
            let a13 = delivered.admit(Self.glucose(100, at: .monotonic(Self.t0), stamp: SensorStamp(run: "r", count: count)))
            #expect(a13)
        }
        // The newest are still known, the oldest half was let go.
        let a14 = delivered.admit(Self.glucose(100, at: .monotonic(Self.t0), stamp: SensorStamp(run: "r", count: Int64(DeliveredReadings.capacity + 9))))
        #expect(!a14)
        let a15 = delivered.admit(Self.glucose(100, at: .monotonic(Self.t0), stamp: SensorStamp(run: "r", count: 0)))
        #expect(a15)
    }
}
