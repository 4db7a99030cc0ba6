import Alarms
import Readings
import Transmitters

/// A `[[device]]`'s alarm options, read from the same options dictionary the drivers get
/// (`TransmitterConfiguration.options`, values as `TOML.Value.plainText`), with defaults by
/// transmitter type. Pure: the runner calls `init(type:options:)` for each device, and hands
/// the driver `driverOptions(type:options:)`, the options without the alarm keys, because
/// drivers reject keys they do not know.
///
/// Keys (a key for another kind of device is left to the driver, which rejects it as unknown,
/// so a misplaced key is never silently ignored):
/// - every type: `watch` (signal loss when silent; default true for glucose transmitters,
///   false otherwise), `battery-low-percent` (default 20; 0 = no battery alarm at all).
/// - glucose transmitters: `sensor-life-hours` (Dexcom 240 (G6 10 days; 168 for a G5 ID
///   `4…`), MiaoMiao, Bubble and xBridge 336 (Libre 1 14 days; only LimiTTer-style xBridges
///   report an age, and they read Libre 1 sensors), CGM Service 0; 0 = no "expiring" alarm),
///   `sensor-expiring-hours` (default 24).
/// - `dexcom`: `battery-low-millivolts` (default 3000, xDrip's voltage A warning; 0 = off).
/// - `heart-rate`: `heart-rate-low` (40), `heart-rate-high` (150), each 0 = off;
///   `heart-rate-minutes` (1).
/// - `ruuvi`, `bthome`, `sensortag` (fridge thermometers): `temperature-low` (2),
///   `temperature-high` (8), in °C, decimals allowed, `"off"` = off; `out-of-range-minutes`
///   (30); `freezing-minutes` (5, at or below 0 °C).
public struct DeviceAlarmOptions: Hashable, Sendable {
    public var watch: Bool
    public var settings: DeviceAlarmSettings

    public static let glucoseTypes: Set<String> = ["dexcom", "miaomiao", "bubble", "xbridge", "cgm-service"]
    public static let thermometerTypes: Set<String> = ["ruuvi", "bthome", "sensortag"]

    public init(watch: Bool, settings: DeviceAlarmSettings) {
        self.watch = watch
        self.settings = settings
    }

    static let commonKeys = ["watch", "battery-low-percent"]
    static let sensorKeys = ["sensor-life-hours", "sensor-expiring-hours"]
    static let heartRateKeys = ["heart-rate-low", "heart-rate-high", "heart-rate-minutes"]
    static let temperatureKeys = ["temperature-low", "temperature-high", "out-of-range-minutes", "freezing-minutes"]

    /// The alarm keys a device of `type` accepts.
    public static func keys(for type: String) -> [String] {
        var keys = commonKeys
        if glucoseTypes.contains(type) { keys += sensorKeys }
        if type == "dexcom" { keys.append("battery-low-millivolts") }
        if type == "heart-rate" { keys += heartRateKeys }
        if thermometerTypes.contains(type) { keys += temperatureKeys }
        return keys
    }

    /// `options` without the alarm keys of `type`: what the driver or decoder is given.
    public static func driverOptions(type: String, options: [String: String]) -> [String: String] {
        let keys = Set(keys(for: type))
        return options.filter { !keys.contains($0.key) }
    }

    /// The defaults for `type`, overridden by `options`; keys of no concern to alarms are
    /// ignored here (the driver validates them).
    public init(type: String, options: [String: String]) throws(TransmitterConfigurationError) {
        let reader = OptionReader(options: options)
        watch = try reader.boolean("watch") ?? Self.glucoseTypes.contains(type)
        settings = DeviceAlarmSettings()
        settings.batteryLowBelow = try reader.integer("battery-low-percent", in: 0...100, offAtZero: true, default: 20)
            .flatMap { Percent(Int($0)) }
        if Self.glucoseTypes.contains(type) {
            let life = try reader.integer("sensor-life-hours", in: 0...2000, offAtZero: true,
                                          default: Self.defaultSensorLifeHours(type: type, options: options))
            settings.sensorLife = life.map { .seconds($0 * 3600) }
            let warning = try reader.integer("sensor-expiring-hours", in: 1...720, offAtZero: false, default: 24)
            settings.sensorExpiringWarning = .seconds((warning ?? 24) * 3600)
        }
        if type == "dexcom" {
            settings.batteryLowBelowMillivolts = try reader.integer("battery-low-millivolts", in: 0...5000, offAtZero: true,
                                                                    default: 3000).map(Int.init)
        }
        if type == "heart-rate" {
            let standard = HeartRateLimits()
            let low = try reader.integer("heart-rate-low", in: 0...300, offAtZero: true, default: Int64(standard.low?.value ?? 0))
            let high = try reader.integer("heart-rate-high", in: 0...300, offAtZero: true, default: Int64(standard.high?.value ?? 0))
            let minutes = try reader.integer("heart-rate-minutes", in: 1...60, offAtZero: false, default: 1) ?? 1
            if let low, let high, low >= high {
                throw .invalidOption("heart-rate-low", value: String(low), expected: "a rate below heart-rate-high (\(high))")
            }
            settings.heartRate = HeartRateLimits(low: low.map { BeatsPerMinute(UInt16($0)) },
                                                 high: high.map { BeatsPerMinute(UInt16($0)) }, sustainedFor: .seconds(minutes * 60))
        }
        if Self.thermometerTypes.contains(type) {
            let standard = TemperatureLimits()
            let low = try reader.celsius("temperature-low", default: standard.low)
            let high = try reader.celsius("temperature-high", default: standard.high)
            if let low, let high, low >= high {
                throw .invalidOption("temperature-low", value: options["temperature-low"] ?? "\(low.degreesCelsius)",
                                     expected: "a temperature below temperature-high (\(high))")
            }
            let minutes = try reader.integer("out-of-range-minutes", in: 1...1440, offAtZero: false, default: 30) ?? 30
            let freezing = try reader.integer("freezing-minutes", in: 1...1440, offAtZero: false, default: 5) ?? 5
            settings.temperature = TemperatureLimits(low: low, high: high, outOfRangeFor: .seconds(minutes * 60),
                                                     freezingFor: .seconds(freezing * 60))
        }
    }

    /// Dexcom G6 sensors last 10 days, G5 sensors 7 (the transmitter ID's first digit says
    /// which, `Dexcom.TransmitterID`); Libre 1 lasts 14 days; the CGM Service's run time is
    /// not read, so it has no default.
    static func defaultSensorLifeHours(type: String, options: [String: String]) -> Int64 {
        switch type {
        case "dexcom": options["transmitter-id"]?.hasPrefix("4") == true ? 7 * 24 : 10 * 24
        case "miaomiao", "bubble", "xbridge": 14 * 24
        default: 0
        }
    }
}

/// Reads option text the way the drivers do, with errors naming the key and what was expected.
private struct OptionReader {
    var options: [String: String]

    func boolean(_ key: String) throws(TransmitterConfigurationError) -> Bool? {
        switch options[key] {
        case nil: return nil
        case "true": return true
        case "false": return false
        case let text?: throw .invalidOption(key, value: text, expected: "true or false")
        }
    }

    /// The integer option within `range`, or `fallback` if absent; nil when it is `off`
    /// (or 0 with `offAtZero`).
    func integer(_ key: String, in range: ClosedRange<Int64>, offAtZero: Bool,
                 default fallback: Int64) throws(TransmitterConfigurationError) -> Int64? {
        guard let text = options[key] else { return offAtZero && fallback == 0 ? nil : fallback }
        if offAtZero, text == "off" { return nil }
        guard let value = Int64(text), range.contains(value) else {
            let off = offAtZero ? " (0 = off)" : ""
            throw .invalidOption(key, value: text, expected: "a whole number \(range.lowerBound)-\(range.upperBound)\(off)")
        }
        return offAtZero && value == 0 ? nil : value
    }

    /// A temperature in °C within -40...60 (what fridge thermometers measure), `off`, or `fallback`.
    func celsius(_ key: String, default fallback: Temperature?) throws(TransmitterConfigurationError) -> Temperature? {
        guard let text = options[key] else { return fallback }
        if text == "off" { return nil }
        guard let value = Double(text), value.isFinite, (-40...60).contains(value) else {
            throw .invalidOption(key, value: text, expected: "degrees Celsius from -40 to 60, or \"off\"")
        }
        return Temperature(degreesCelsius: value)
    }
}
