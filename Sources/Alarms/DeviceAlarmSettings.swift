import Readings

/// What one device's own alarms watch for. Every limit is
/// optional: nil turns that alarm off. The app builds these from each `[[device]]`'s options
/// by type; a device with no entry gets `DeviceAlarmSettings()`: sensor warm-up and end (they
/// need no limit) and the 20 % battery alarm, nothing else.
public struct DeviceAlarmSettings: Hashable, Sendable {
    /// The sensor's rated life (Dexcom G6 10 days, Libre 1 14 days); nil: no "expiring" alarm.
    public var sensorLife: Duration?
    /// "Sensor expiring" once the sensor is this close to `sensorLife` (default a day: time to
    /// have a new sensor at hand before the old one stops at night).
    public var sensorExpiringWarning: Duration
    /// Battery below this percentage raises "battery low" (default 20 %, the level at which
    /// peers warn); it clears at `batteryLowBelow + batteryClearingMargin`.
    public var batteryLowBelow: Percent?
    /// Battery voltage below this raises "battery low", for transmitters that report volts,
    /// not a percentage (Dexcom G5/G6: xDrip warns below voltage A 3.00 V, Ob1G5StateMachine
    /// `LOW_BATTERY_WARNING_LEVEL` = 300; docs/protocols/dexcom-g5-g6.md §Control messages).
    public var batteryLowBelowMillivolts: Int?
    public var heartRate: HeartRateLimits?
    public var temperature: TemperatureLimits?

    /// Hysteresis: a value flapping 19/21 % around a 20 % limit raises once and stays raised
    /// until 25 %. Battery levels only fall within one battery; a real rise is a new battery.
    public static let batteryClearingMargin = 5
    /// The same for volts: 50 mV is above the wobble of a coin cell's voltage under radio load.
    public static let batteryClearingMarginMillivolts = 50

    public init(sensorLife: Duration? = nil, sensorExpiringWarning: Duration = .seconds(24 * 3600),
                batteryLowBelow: Percent? = Percent(20), batteryLowBelowMillivolts: Int? = nil,
                heartRate: HeartRateLimits? = nil, temperature: TemperatureLimits? = nil) {
        self.sensorLife = sensorLife
        self.sensorExpiringWarning = sensorExpiringWarning
        self.batteryLowBelow = batteryLowBelow
        self.batteryLowBelowMillivolts = batteryLowBelowMillivolts
        self.heartRate = heartRate
        self.temperature = temperature
    }
}
