import Clocks

/// One measured value from one transmitter, at one time: what alarms, history and export consume.
///
/// `kind` is derived from `value`, so the two can never disagree.
public struct Reading: Hashable, Sendable, CustomStringConvertible {
    public var device: DeviceID
    public var value: Value
    public var time: Time
    /// The transmitter's own name for this reading, where it has one (`SensorStamp`): what
    /// makes a reading received twice one reading.
    public var sensorStamp: SensorStamp?

    public init(device: DeviceID, value: Value, time: Time, sensorStamp: SensorStamp? = nil) {
        self.device = device
        self.value = value
        self.time = time
        self.sensorStamp = sensorStamp
    }

    public var kind: Kind { value.kind }

    /// Sensor glucose without a `SensorStamp` is one reading with another of the same value
    /// measured this close to it: a CGM measures at most once a minute, and the same reading
    /// dated twice from the transmitter's clock lands milliseconds to a second apart
    /// (docs/reading-identity.md).
    public static let sameReadingWindow: Duration = .seconds(30)

    /// What was measured, with its unit in the type.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        case heartRate(BeatsPerMinute, contact: SkinContact)
        /// Beat-to-beat intervals in the order the sensor measured them (oldest first).
        case rrIntervals([RRInterval])
        case energyExpended(EnergyExpended)
        /// `trend` is nil when the transmitter sends none (as opposed to `.notComputable`).
        case glucose(GlucoseConcentration, trend: TrendDirection?)
        /// A fingerstick from a blood glucose meter: also a calibration point for transmitters
        /// that report raw values (Libre through a bridge, the G4 through xBridge). `context`
        /// is the meal and tester the person gave the meter, when it sent them.
        case meterGlucose(GlucoseConcentration, context: MeterReadingContext?)
        /// Relative humidity, for the insulin-fridge thermometers, at the sensor's resolution.
        case humidity(RelativeHumidity)
        case temperature(Temperature)
        case battery(Percent)

        public var kind: Kind {
            switch self {
            case .heartRate: .heartRate
            case .rrIntervals: .rrIntervals
            case .energyExpended: .energyExpended
            case .glucose: .glucose
            case .meterGlucose: .meterGlucose
            case .humidity: .humidity
            case .temperature: .temperature
            case .battery: .battery
            }
        }

        public var description: String {
            switch self {
            case let .heartRate(bpm, contact): "\(bpm) (\(contact))"
            case let .rrIntervals(intervals): "RR \(intervals.map(\.description).joined(separator: ", "))"
            case let .energyExpended(energy): "\(energy)"
            case let .glucose(concentration, trend): "\(concentration) \(trend.map(\.description) ?? "no trend")"
            case let .meterGlucose(concentration, context): "meter \(concentration)" + (context.map { " (\($0))" } ?? "")
            case let .humidity(level): "humidity \(level)"
            case let .temperature(temperature): "\(temperature)"
            case let .battery(level): "battery \(level)"
            }
        }
    }

    /// The kind of a reading, with a stable name for storage and configuration lines.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case heartRate = "heart-rate"
        case rrIntervals = "rr-intervals"
        case energyExpended = "energy-expended"
        case glucose
        case meterGlucose = "meter-glucose"
        case humidity
        case temperature
        case battery
    }

    /// When the value was measured.
    ///
    /// Drivers never read a clock, and most transmitters do not send a wall-clock time, so a
    /// driver dates a reading on the monotonic clock it was handed (`now`, or `now` minus the
    /// age the transmitter reports for backfill). Devices with their own calendar clock (glucose
    /// meters' records) give a wall-clock time. The app turns either into wall time with
    /// `wallClockTime(monotonicNow:wallNow:)` when it stores the reading.
    public enum Time: Hashable, Sendable, CustomStringConvertible {
        case monotonic(MonotonicInstant)
        case wallClock(WallClockTime)

        /// The wall-clock time of this reading, given the two clocks read at the same moment.
        public func wallClockTime(monotonicNow: MonotonicInstant, wallNow: WallClockTime) -> WallClockTime {
            switch self {
            case let .monotonic(instant): wallNow - (monotonicNow - instant)
            case let .wallClock(time): time
            }
        }

        public var description: String {
            switch self {
            case let .monotonic(instant): "\(instant)"
            case let .wallClock(time): "\(time)"
            }
        }
    }

    public var description: String {
        "\(device) \(kind.rawValue) \(value) @ \(time)" + (sensorStamp.map { " (sensor \($0))" } ?? "")
    }
}
