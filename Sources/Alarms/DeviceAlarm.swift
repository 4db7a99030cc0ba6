/// The alarms that belong to one device other than signal loss: its sensor's life, its battery, and
/// the heart rate or fridge temperature it measures. Each is its own channel per device,
/// `<name>:<device>`, so acknowledging a fridge alarm never touches anything about the glucose
/// sensor.
public enum DeviceAlarm: String, CaseIterable, Hashable, Sendable {
    /// A new sensor is warming up: no glucose yet, and that is normal.
    case sensorWarmUp = "sensor-warmup"
    /// The sensor's age is within the warning window of its rated life.
    case sensorExpiring = "sensor-expiring"
    /// The sensor session has ended (expired, stopped, failed, none started): no more glucose
    /// will come until a person changes it.
    case sensorEnded = "sensor-ended"
    /// The transmitter's or bridge's battery is low.
    case batteryLow = "battery-low"
    case heartRateLow = "heart-rate-low"
    case heartRateHigh = "heart-rate-high"
    /// The insulin fridge is too cold (or freezing).
    case temperatureLow = "temperature-low"
    /// The insulin fridge is too warm.
    case temperatureHigh = "temperature-high"
}
