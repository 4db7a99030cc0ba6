import Clocks
import Testing
@testable import Readings

@Suite struct ReadingTests {
    @Test func kindFollowsValue() {
        let cases: [(Reading.Value, Reading.Kind)] = [
            (.heartRate(BeatsPerMinute(60), contact: .detected), .heartRate),
            (.rrIntervals([RRInterval(ticks: 1024)]), .rrIntervals),
            (.energyExpended(EnergyExpended(kilojoules: 3)), .energyExpended),
            (.glucose(GlucoseConcentration(milligramsPerDeciliter: 100), trend: .flat), .glucose),
            (.meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 123), context: nil), .meterGlucose),
            (.humidity(RelativeHumidity(percent: 45)!), .humidity),
            (.temperature(Temperature(degreesCelsius: 20)), .temperature),
            (.battery(Percent(80)!), .battery),
        ]
        for (value, kind) in cases {
            let reading = Reading(device: "hr1", value: value, time: .monotonic(.zero))
            #expect(reading.kind == kind)
        }
        #expect(Reading.Kind.allCases.map(\.rawValue)
            == ["heart-rate", "rr-intervals", "energy-expended", "glucose", "meter-glucose", "humidity", "temperature", "battery"])
    }

    @Test func monotonicTimeBecomesWallClockAtStorage() {
        // Measured at t+100 s; the app stores it at t+130 s when the wall clock says 10:30:00Z.
        let time = Reading.Time.monotonic(MonotonicInstant(nanoseconds: 100_000_000_000))
        let wall = time.wallClockTime(
            monotonicNow: MonotonicInstant(nanoseconds: 130_000_000_000),
            wallNow: WallClockTime(secondsSinceEpoch: 1_795_861_800))
        #expect(wall == WallClockTime(secondsSinceEpoch: 1_795_861_770))
    }

    @Test func wallClockTimeIsKept() {
        let recorded = WallClockTime(secondsSinceEpoch: 1_700_000_000)
        let wall = Reading.Time.wallClock(recorded).wallClockTime(
            monotonicNow: MonotonicInstant(nanoseconds: 5), wallNow: WallClockTime(secondsSinceEpoch: 1_800_000_000))
        #expect(wall == recorded)
    }

    @Test func describes() {
        let reading = Reading(device: "hr1", value: .heartRate(BeatsPerMinute(72), contact: .detected),
                              time: .monotonic(MonotonicInstant(nanoseconds: 1_500_000_000)))
        #expect(reading.description == "hr1 heart-rate 72 bpm (skin contact) @ t+1.500s")
        #expect(DeviceID("a") < DeviceID("b"))
    }
}
