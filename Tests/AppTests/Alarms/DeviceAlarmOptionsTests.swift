import Alarms
import Clocks
import App
import Readings
import Testing
import Transmitters

@Suite struct DeviceAlarmOptionsTests {
    static func options(_ type: String, _ options: [String: String] = [:]) throws -> DeviceAlarmOptions {
        try DeviceAlarmOptions(type: type, options: options)
    }

    @Test func glucoseTransmitterDefaults() throws {
        let g6 = try Self.options("dexcom", ["transmitter-id": "811234"])
        #expect(g6.watch)
        #expect(g6.settings == DeviceAlarmSettings(sensorLife: .seconds(240 * 3600), sensorExpiringWarning: .seconds(24 * 3600),
                                                   batteryLowBelow: Percent(20), batteryLowBelowMillivolts: 3000))
        #expect(try Self.options("dexcom", ["transmitter-id": "4G1234"]).settings.sensorLife == .seconds(168 * 3600))
        for type in ["miaomiao", "bubble", "xbridge"] {
            let libre = try Self.options(type)
            #expect(libre.watch)
            #expect(libre.settings == DeviceAlarmSettings(sensorLife: .seconds(336 * 3600)), "\(type)")
        }
        let cgm = try Self.options("cgm-service")
        #expect(cgm.watch && cgm.settings == DeviceAlarmSettings())
    }

    @Test func heartRateAndThermometerDefaults() throws {
        let strap = try Self.options("heart-rate")
        #expect(!strap.watch)
        #expect(strap.settings.heartRate == HeartRateLimits(low: BeatsPerMinute(40), high: BeatsPerMinute(150), sustainedFor: .seconds(60)))
        #expect(strap.settings.temperature == nil && strap.settings.sensorLife == nil)
        for type in ["ruuvi", "bthome", "sensortag"] {
            let fridge = try Self.options(type)
            #expect(!fridge.watch)
            #expect(fridge.settings.temperature == TemperatureLimits(
                low: Temperature(degreesCelsius: 2), high: Temperature(degreesCelsius: 8), outOfRangeFor: .seconds(1800),
                freezing: Temperature(degreesCelsius: 0), freezingFor: .seconds(300)), "\(type)")
            #expect(fridge.settings.heartRate == nil)
        }
        #expect(try Self.options("glucose-meter") == DeviceAlarmOptions(watch: false, settings: DeviceAlarmSettings()))
    }

    @Test func everyKeyOverrides() throws {
        let g6 = try Self.options("dexcom", ["watch": "false", "battery-low-percent": "0", "sensor-life-hours": "0",
                                             "sensor-expiring-hours": "48", "battery-low-millivolts": "2900"])
        #expect(!g6.watch)
        #expect(g6.settings == DeviceAlarmSettings(sensorLife: nil, sensorExpiringWarning: .seconds(48 * 3600),
                                                   batteryLowBelow: nil, batteryLowBelowMillivolts: 2900))
        let strap = try Self.options("heart-rate", ["watch": "true", "heart-rate-low": "0", "heart-rate-high": "130",
                                                    "heart-rate-minutes": "5"])
        #expect(strap.watch)
        #expect(strap.settings.heartRate == HeartRateLimits(low: nil, high: BeatsPerMinute(130), sustainedFor: .seconds(300)))
        let fridge = try Self.options("ruuvi", ["temperature-low": "1.5", "temperature-high": "off",
                                                "out-of-range-minutes": "45", "freezing-minutes": "2"])
        #expect(fridge.settings.temperature == TemperatureLimits(low: Temperature(degreesCelsius: 1.5), high: nil,
                                                                 outOfRangeFor: .seconds(2700), freezingFor: .seconds(120)))
    }

    struct Rejection: Sendable, CustomTestStringConvertible {
        var type: String
        var options: [String: String]
        var error: TransmitterConfigurationError
        var testDescription: String { "\(type) \(options)" }
    }

    @Test(arguments: [
        Rejection(type: "heart-rate", options: ["watch": "yes"], error: .invalidOption("watch", value: "yes", expected: "true or false")),
        Rejection(type: "bubble", options: ["battery-low-percent": "101"],
                  error: .invalidOption("battery-low-percent", value: "101", expected: "a whole number 0-100 (0 = off)")),
        Rejection(type: "bubble", options: ["sensor-expiring-hours": "0"],
                  error: .invalidOption("sensor-expiring-hours", value: "0", expected: "a whole number 1-720")),
        Rejection(type: "dexcom", options: ["sensor-life-hours": "ten days"],
                  error: .invalidOption("sensor-life-hours", value: "ten days", expected: "a whole number 0-2000 (0 = off)")),
        Rejection(type: "heart-rate", options: ["heart-rate-minutes": "0"],
                  error: .invalidOption("heart-rate-minutes", value: "0", expected: "a whole number 1-60")),
        Rejection(type: "heart-rate", options: ["heart-rate-low": "120", "heart-rate-high": "100"],
                  error: .invalidOption("heart-rate-low", value: "120", expected: "a rate below heart-rate-high (100)")),
        Rejection(type: "heart-rate", options: ["heart-rate-low": "160"],
                  error: .invalidOption("heart-rate-low", value: "160", expected: "a rate below heart-rate-high (150)")),
        Rejection(type: "ruuvi", options: ["temperature-high": "hot"],
                  error: .invalidOption("temperature-high", value: "hot", expected: "degrees Celsius from -40 to 60, or \"off\"")),
        Rejection(type: "ruuvi", options: ["temperature-low": "nan"],
                  error: .invalidOption("temperature-low", value: "nan", expected: "degrees Celsius from -40 to 60, or \"off\"")),
        Rejection(type: "bthome", options: ["temperature-low": "9"],
                  error: .invalidOption("temperature-low", value: "9", expected: "a temperature below temperature-high (8 °C)")),
        Rejection(type: "sensortag", options: ["out-of-range-minutes": "2000"],
                  error: .invalidOption("out-of-range-minutes", value: "2000", expected: "a whole number 1-1440")),
    ])
    func rejectsBadValues(_ rejection: Rejection) {
        #expect(throws: rejection.error) { try DeviceAlarmOptions(type: rejection.type, options: rejection.options) }
    }

    @Test func theDriverGetsEverythingButItsTypesAlarmKeys() throws {
        let options = ["heart-rate-low": "45", "watch": "true", "no-data-timeout": "30s"]
        let rest = DeviceAlarmOptions.driverOptions(type: "heart-rate", options: options)
        #expect(rest == ["no-data-timeout": "30s"])
        _ = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "heart-rate", options: rest))
        // A fridge key on a heart-rate strap is left to the driver, which names it.
        let misplaced = DeviceAlarmOptions.driverOptions(type: "heart-rate", options: ["temperature-high": "8"])
        #expect(throws: TransmitterConfigurationError.unknownOption("temperature-high", type: "heart-rate")) {
            _ = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "heart-rate", options: misplaced))
        }
        let fridge = DeviceAlarmOptions.driverOptions(type: "ruuvi", options: ["temperature-high": "9", "freezing-minutes": "3"])
        _ = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(typeName: "ruuvi", options: fridge))
        #expect(DeviceAlarmOptions.keys(for: "dexcom") == [
            "watch", "battery-low-percent", "sensor-life-hours", "sensor-expiring-hours", "battery-low-millivolts"])
    }

    /// The safety net for a new type: every registered type gets the signal-loss default its
    /// category calls for, through the same path a configured device takes. A continuous
    /// glucose sensor declared without it would go quiet without an alarm.
    @Test(arguments: TransmitterCatalog.builtIn.names)
    func everyRegisteredTypeGetsItsCategorysSignalLossDefault(type: String) throws {
        let declaration = try #require(TransmitterCatalog.builtIn.declaration(named: type))
        let options = try DeviceAlarmOptions(type: type, options: [:])
        #expect(options.watch == declaration.category.isWatchedForSignalLoss)
        #expect(DeviceAlarmOptions.glucoseTypes.contains(type) == declaration.category.isWatchedForSignalLoss)
        let alarms = try ApplianceAlarms(configuration: AlarmConfiguration(), devices: [TransmitterConfiguration(typeName: type, device: "d")],
                                         at: MonotonicInstant(nanoseconds: 0))
        #expect(alarms.engine.configuration.watchedDevices.contains("d") == declaration.category.isWatchedForSignalLoss)
        if declaration.category == .continuousGlucose {
            #expect(DeviceAlarmOptions.keys(for: type).contains("sensor-life-hours"))
        }
    }

    @Test func anUnknownTypeIsNotWatchedAndTakesOnlyTheCommonKeys() throws {
        #expect(try Self.options("libre3").watch == false)
        #expect(DeviceAlarmOptions.keys(for: "libre3") == ["watch", "battery-low-percent"])
    }
}
