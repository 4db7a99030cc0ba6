import Alarms
import Readings
import Transmitters

/// A `[[device]]`'s alarm options, read from the same options dictionary the drivers get
/// (`TransmitterConfiguration.options`, values as `TOML.Value.plainText`), with defaults by
/// transmitter type. Pure: the runner calls `init(type:options:)` for each device, and hands
/// the driver `driverOptions(type:options:)`, the options without the alarm keys, because
/// drivers reject keys they do not know.
///
/// Which keys apply, and their defaults, follow from the type's `TransmitterDeclaration` (its
/// category and its alarms), never from a list of type names here: a type added to
/// `TransmitterCatalog.builtIn` gets its category's alarms. Keys (a key for another kind of
/// device is left to the driver, which rejects it as unknown, so a misplaced key is never
/// silently ignored):
/// - every type: `watch` (signal loss when silent; default true for continuous glucose
///   sensors, false otherwise), `battery-low-percent` (default 20; 0 = no battery alarm at all).
/// - `.sensorLife` (continuous glucose): `sensor-life-hours` (the type's declared sensor life:
///   Dexcom 240, or 168 for a G5 ID `4…`; MiaoMiao, Bubble and xBridge 336; CGM Service none;
///   0 = no "expiring" alarm), `sensor-expiring-hours` (default 24).
/// - `.batteryVoltage` (Dexcom): `battery-low-millivolts` (default 3000, xDrip's voltage A
///   warning; 0 = off).
/// - `.heartRate`: `heart-rate-low` (40), `heart-rate-high` (150), each 0 = off;
///   `heart-rate-minutes` (1).
/// - `.temperature` (fridge thermometers): `temperature-low` (2), `temperature-high` (8), in
///   °C, decimals allowed, `"off"` = off; `out-of-range-minutes` (30); `freezing-minutes` (5,
///   at or below 0 °C).
public struct DeviceAlarmOptions: Hashable, Sendable {
    public var watch: Bool
    public var settings: DeviceAlarmSettings

    /// The types whose silence is a signal loss unless configured otherwise, from their declarations.
    /// The follower types are glucose sources too (docs/followers.md).
    public static let glucoseTypes = Set(TransmitterCatalog.builtIn.entries.filter(\.declaration.category.isWatchedForSignalLoss).map(\.name))
        .union(FollowerSource.typeNames)

    public init(watch: Bool, settings: DeviceAlarmSettings) {
        self.watch = watch
        self.settings = settings
    }

    static let commonKeys = ["watch", "battery-low-percent"]
    static let sensorKeys = ["sensor-life-hours", "sensor-expiring-hours"]
    static let heartRateKeys = ["heart-rate-low", "heart-rate-high", "heart-rate-minutes"]
    static let temperatureKeys = ["temperature-low", "temperature-high", "out-of-range-minutes", "freezing-minutes"]

    /// The configuration keys of an alarm family.
    static func keys(of alarm: AlarmFamily) -> [String] {
        switch alarm {
        case .sensorLife: sensorKeys
        case .batteryVoltage: ["battery-low-millivolts"]
        case .heartRate: heartRateKeys
        case .temperature: temperatureKeys
        }
    }

    /// The alarm families of `type`, from its declaration (none for a type Vigil does not know).
    static func alarms(of type: String) -> Set<AlarmFamily> {
        TransmitterCatalog.builtIn.declaration(named: type)?.alarms ?? []
    }

    /// The alarm keys a device of `type` accepts.
    public static func keys(for type: String) -> [String] {
        let alarms = alarms(of: type)
        return commonKeys + AlarmFamily.allCases.filter(alarms.contains).flatMap(keys(of:))
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
        let declaration = TransmitterCatalog.builtIn.declaration(named: type)
        let alarms = declaration?.alarms ?? []
        watch = try reader.boolean("watch") ?? declaration?.category.isWatchedForSignalLoss ?? FollowerSource.typeNames.contains(type)
        settings = DeviceAlarmSettings()
        settings.batteryLowBelow = try reader.integer("battery-low-percent", in: 0...100, offAtZero: true, default: 20)
            .flatMap { Percent(Int($0)) }
        if alarms.contains(.sensorLife) {
            let declared = declaration?.defaultSensorLife(options: options)
            let life = try reader.integer("sensor-life-hours", in: 0...2000, offAtZero: true,
                                          default: declared.map { Int64($0.components.seconds / 3600) } ?? 0)
            settings.sensorLife = life.map { .seconds($0 * 3600) }
            let warning = try reader.integer("sensor-expiring-hours", in: 1...720, offAtZero: false, default: 24)
            settings.sensorExpiringWarning = .seconds((warning ?? 24) * 3600)
        }
        if alarms.contains(.batteryVoltage) {
            settings.batteryLowBelowMillivolts = try reader.integer("battery-low-millivolts", in: 0...5000, offAtZero: true,
                                                                    default: 3000).map(Int.init)
        }
        if alarms.contains(.heartRate) {
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
        if alarms.contains(.temperature) {
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
