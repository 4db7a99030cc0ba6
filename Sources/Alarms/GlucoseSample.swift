import Clocks
import Readings

extension AlarmEngine {
    /// One glucose reading as the engine needs it: the monotonic time decides freshness, the
    /// wall-clock time (when known) picks the time-of-day profile.
    public struct GlucoseSample: Hashable, Sendable {
        public var device: DeviceID
        public var concentration: GlucoseConcentration
        public var trend: TrendDirection?
        public var measuredAt: MonotonicInstant
        public var wallClockTime: WallClockTime?

        public init(device: DeviceID, concentration: GlucoseConcentration, trend: TrendDirection?,
                    measuredAt: MonotonicInstant, wallClockTime: WallClockTime?) {
            self.device = device
            self.concentration = concentration
            self.trend = trend
            self.measuredAt = measuredAt
            self.wallClockTime = wallClockTime
        }

        /// The sample for a glucose `Reading` (nil for any other kind), given the two clocks read
        /// at the same moment; `wallNow` is nil while the wall clock is not set, and then a
        /// reading dated by wall clock cannot be placed and is refused.
        public init?(_ reading: Reading, monotonicNow: MonotonicInstant, wallNow: WallClockTime?) {
            guard case let .glucose(concentration, trend) = reading.value else { return nil }
            switch reading.time {
            case let .monotonic(instant):
                self.init(device: reading.device, concentration: concentration, trend: trend, measuredAt: instant,
                          wallClockTime: wallNow.map { reading.time.wallClockTime(monotonicNow: monotonicNow, wallNow: $0) })
            case let .wallClock(time):
                guard let wallNow else { return nil }
                self.init(device: reading.device, concentration: concentration, trend: trend,
                          measuredAt: monotonicNow - (wallNow - time), wallClockTime: time)
            }
        }
    }
}
