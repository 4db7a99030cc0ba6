/// What a transmitter type measures, as far as alarms are concerned. The category decides which
/// alarms a device of the type gets unless its configuration says otherwise; a type names its
/// category in its `TransmitterDeclaration`, so a new glucose transmitter cannot be added
/// without its signal-loss alarm.
public enum TransmitterCategory: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A continuous glucose sensor (Dexcom, a Libre through its bridge, a CGM Service sensor):
    /// its silence is a signal loss, the alarm a person asleep depends on.
    case continuousGlucose = "continuous glucose"
    /// A fingerstick meter: it connects when someone has measured, so silence is its normal state.
    case glucoseMeter = "glucose meter"
    case heartRate = "heart rate"
    /// A fridge thermometer (an insulin fridge, most often).
    case thermometer

    /// Whether a device of this category raises signal loss when it goes quiet, unless its
    /// configuration says `watch = false`.
    public var isWatchedForSignalLoss: Bool { self == .continuousGlucose }

    /// The alarms every type of this category offers (on top of signal loss and battery, which
    /// every type has).
    public var alarms: Set<AlarmFamily> {
        switch self {
        case .continuousGlucose: [.sensorLife]
        case .glucoseMeter: []
        case .heartRate: [.heartRate]
        case .thermometer: [.temperature]
        }
    }

    public var description: String { rawValue }
}

/// A family of alarm settings a device may carry beyond signal loss and battery percent. The
/// configuration keys and their defaults belong to the app (`DeviceAlarmOptions`); a type only
/// says which families apply to it.
public enum AlarmFamily: String, Hashable, Sendable, CaseIterable {
    /// `sensor-life-hours`, `sensor-expiring-hours`: a sensor that expires.
    case sensorLife
    /// `battery-low-millivolts`: a transmitter that reports its battery in volts (Dexcom).
    case batteryVoltage
    /// `heart-rate-low`, `heart-rate-high`, `heart-rate-minutes`.
    case heartRate
    /// `temperature-low`, `temperature-high`, `out-of-range-minutes`, `freezing-minutes`.
    case temperature
}
