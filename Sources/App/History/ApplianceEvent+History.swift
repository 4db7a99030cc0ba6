import Clocks
import Readings

extension ApplianceEvent {
    /// A reading that arrives this long after it was measured came from the transmitter's
    /// memory (a Dexcom's backfill, a Libre bridge's history, a meter's records), not live.
    public static let backfillAge: Duration = .seconds(120)

    /// The readings of a `.readings` event as the history keeps them: dated on the wall clock
    /// (a reading stamped on the monotonic clock is dated by its age), live or backfill by age.
    /// Empty for every other event.
    public func recordedReadings(monotonicNow: MonotonicInstant, wallNow: WallClockTime) -> [RecordedReading] {
        guard case let .readings(device, _, readings) = self else { return [] }
        return readings.map { reading in
            let wallTime = reading.time.wallClockTime(monotonicNow: monotonicNow, wallNow: wallNow)
            let origin: RecordedReading.Origin = wallNow - wallTime > Self.backfillAge ? .backfill : .live
            return RecordedReading(device: device, value: reading.value, wallTime: wallTime, sensorStamp: reading.sensorStamp, origin: origin)
        }
    }
}
