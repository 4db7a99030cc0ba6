import App
import Clocks
import Readings
import Testing

@Suite struct ApplianceEventHistoryTests {
    let now = MonotonicInstant(nanoseconds: 10_000_000_000_000)
    let wall = WallClockTime(secondsSinceEpoch: 1_790_000_000)

    @Test func readingsAreDatedOnTheWallClockAndTaggedLiveOrBackfillByAge() {
        let live = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 101), trend: .flat), time: .monotonic(now - .seconds(3)))
        let backfill = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 96), trend: nil), time: .monotonic(now - .seconds(600)))
        let meter = Reading(device: "g6", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 99), context: nil), time: .wallClock(wall - .seconds(60)))
        let recorded = ApplianceEvent.readings("g6", peer: nil, [live, backfill, meter]).recordedReadings(monotonicNow: now, wallNow: wall)
        #expect(recorded == [
            RecordedReading(device: "g6", value: live.value, wallTime: wall - .seconds(3), origin: .live),
            RecordedReading(device: "g6", value: backfill.value, wallTime: wall - .seconds(600), origin: .backfill),
            RecordedReading(device: "g6", value: meter.value, wallTime: wall - .seconds(60), origin: .live),
        ])
    }

    @Test func otherEventsRecordNothing() {
        #expect(ApplianceEvent.bluetooth(.poweredOn).recordedReadings(monotonicNow: now, wallNow: wall).isEmpty)
    }
}
