import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The SensorTag session on a virtual clock: jumps to `nextDeadline`, never sleeps.
@Suite struct SensorTagDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 3_000_000_000)
    static let irData = SensorTagProfile.irTemperatureData
    static let irConfig = SensorTagProfile.irTemperatureConfiguration
    static let irPeriod = SensorTagProfile.irTemperaturePeriod
    static let humData = SensorTagProfile.humidityData
    static let humConfig = SensorTagProfile.humidityConfiguration
    static let humPeriod = SensorTagProfile.humidityPeriod

    /// A CC2541 tag as later firmware presents it (data read+notify, config and period read+write).
    static let tag = DiscoveredServices([
        SensorTagProfile.irTemperatureService: [
            DiscoveredCharacteristic(irData, properties: [.read, .notify]),
            DiscoveredCharacteristic(irConfig, properties: [.read, .write]),
            DiscoveredCharacteristic(irPeriod, properties: [.read, .write]),
        ],
        SensorTagProfile.humidityService: [
            DiscoveredCharacteristic(humData, properties: [.read, .notify]),
            DiscoveredCharacteristic(humConfig, properties: [.read, .write]),
            DiscoveredCharacteristic(humPeriod, properties: [.read, .write]),
        ],
    ])

    /// Firmware 1.4: no period characteristics.
    static let firmware14: DiscoveredServices = {
        var services = tag
        services.services[SensorTagProfile.irTemperatureService]?.removeLast()
        services.services[SensorTagProfile.humidityService]?.removeLast()
        return services
    }()

    func reading(_ value: Reading.Value, at time: MonotonicInstant) -> DriverAction {
        .emit(.reading(Reading(device: "tag", value: value, time: .monotonic(time))))
    }

    /// A driver that has started and had every start operation acknowledged.
    func running(_ configuration: SensorTagDriver.Configuration = .init()) -> SensorTagDriver {
        var driver = SensorTagDriver(device: "tag", configuration: configuration)
        for action in driver.start(Self.tag, at: Self.t0) {
            switch action {
            case let .write(uuid, _, true): _ = driver.receive(.writeCompleted(uuid), at: Self.t0)
            case let .subscribe(uuid, _): _ = driver.receive(.subscribed(uuid), at: Self.t0)
            default: break
            }
        }
        return driver
    }

    @Test func startTurnsTheHumiditySensorOnByDefault() {
        var driver = SensorTagDriver(device: "tag")
        #expect(driver.phase == .notStarted)
        #expect(driver.nextDeadline == nil)
        let actions = driver.start(Self.tag, at: Self.t0)
        #expect(actions == [
            .emit(.connected),
            .write(Self.humPeriod, [100], withResponse: true),     // 1 s in 10 ms units
            .subscribe(Self.humData, indications: false),
            .write(Self.humConfig, [0x01], withResponse: true),
        ])
        #expect(driver.phase == .running(.measuring))
        #expect(driver.pending == [.write(Self.humPeriod), .subscribe(Self.humData), .write(Self.humConfig)])
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
    }

    @Test func irSourceTurnsBothSensorsOnAndFirmware14HasNoPeriod() {
        var driver = SensorTagDriver(device: "tag", configuration: .init(temperatureSource: .irObject, period: .milliseconds(500)))
        #expect(driver.start(Self.tag, at: Self.t0) == [
            .emit(.connected),
            .write(Self.irPeriod, [50], withResponse: true),
            .subscribe(Self.irData, indications: false),
            .write(Self.irConfig, [0x01], withResponse: true),
            .write(Self.humPeriod, [50], withResponse: true),
            .subscribe(Self.humData, indications: false),
            .write(Self.humConfig, [0x01], withResponse: true),
        ])
        var old = SensorTagDriver(device: "tag", configuration: .init(temperatureSource: .irAmbient))
        #expect(old.start(Self.firmware14, at: Self.t0) == [
            .emit(.connected),
            .subscribe(Self.irData, indications: false),
            .write(Self.irConfig, [0x01], withResponse: true),
            .subscribe(Self.humData, indications: false),
            .write(Self.humConfig, [0x01], withResponse: true),
        ])
    }

    @Test func incompatibleTagIsDropped() {
        var noNotify = Self.tag
        noNotify.services[SensorTagProfile.humidityService]![0] = DiscoveredCharacteristic(Self.humData, properties: .read)
        var driver = SensorTagDriver(device: "tag")
        let reason = "\(Self.humData) is missing or does not notify"
        #expect(driver.start(noNotify, at: Self.t0) == [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)])
        var readOnlyConfig = Self.tag
        readOnlyConfig.services[SensorTagProfile.humidityService]![1] = DiscoveredCharacteristic(Self.humConfig, properties: .read)
        var other = SensorTagDriver(device: "tag")
        let configReason = "\(Self.humConfig) is missing or not writable"
        #expect(other.start(readOnlyConfig, at: Self.t0) == [.emit(.incompatible(reason: configReason)), .disconnect(reason: configReason)])
        #expect(other.nextDeadline == nil)
    }

    @Test func humidityNotificationsBecomeReadings() {
        var driver = running()
        let at = Self.t0 + .seconds(1)
        #expect(driver.receive(.value(Self.humData, [UInt8](hex: "3C4A 5A8A"), origin: .notification), at: at) == [
            reading(.temperature(Temperature(degreesCelsius: 4.1)), at: at),       // −46.85 + 175.72 × 0x4A3C / 65536, to hundredths
            reading(.humidity(RelativeHumidity(percent: 61.55)!), at: at),
        ])
        #expect(driver.nextDeadline == at + .seconds(30), "fed by the reading")
        // IR data is not ours to report with the SHT21 as the source.
        #expect(driver.receive(.value(Self.irData, [UInt8](hex: "A0FF 000C"), origin: .notification), at: at) == [])
    }

    @Test(arguments: [
        (SensorTagDriver.TemperatureSource.irAmbient, SensorTagIRTemperature.defaultS0, 24.0),
        (.irObject, SensorTagIRTemperature.defaultS0, 26.041200573925607),
        (.irObject, SensorTagIRTemperature.nodeSensorTagS0, 26.332294895933728),
    ])
    func irTemperatureSources(source: SensorTagDriver.TemperatureSource, s0: Double, celsius: Double) throws {
        var driver = running(.init(temperatureSource: source, s0: s0))
        let actions = driver.receive(.value(Self.irData, [UInt8](hex: "A0FF 000C"), origin: .notification), at: Self.t0)
        guard case let .emit(.reading(got))? = actions.first, actions.count == 1,
              case let .temperature(temperature) = got.value else {
            Issue.record("expected one temperature, got \(actions)")
            return
        }
        #expect(abs(temperature.degreesCelsius - celsius) < 1e-9)
        // With an IR source, the SHT21 still gives humidity but not the temperature.
        #expect(driver.receive(.value(Self.humData, [UInt8](hex: "3C4A 5A8A"), origin: .notification), at: Self.t0)
            == [reading(.humidity(RelativeHumidity(percent: 61.55)!), at: Self.t0)])
    }

    @Test func malformedAndNotYetMeasuredValuesAreReported() {
        var driver = running()
        #expect(driver.receive(.value(Self.humData, [0x01, 0x02, 0x03], origin: .notification), at: Self.t0)
            == [.emit(.malformedValue(Self.humData, reason: "truncated at SHT21 humidity: needed 2 byte(s), 1 left in 01 02 03"))])
        #expect(driver.receive(.value(Self.humData, [0, 0, 0, 0], origin: .notification), at: Self.t0)
            == [.emit(.malformedValue(Self.humData, reason: "all zero: the SHT21 has not measured yet"))])
        var ir = running(.init(temperatureSource: .irObject))
        #expect(ir.receive(.value(Self.irData, [0x00, 0x80, 0x78, 0xEC], origin: .notification), at: Self.t0)
            == [.emit(.malformedValue(Self.irData, reason: "no object temperature solves the TMP006 model for 00 80 78 ec"))])
        #expect(driver.nextDeadline == Self.t0 + .seconds(30), "nothing usable: the watchdog was not fed")
    }

    @Test func requestDisconnectSwitchesSensorsOffFirst() {
        var driver = running(.init(temperatureSource: .irAmbient))
        let at = Self.t0 + .seconds(5)
        #expect(driver.requestDisconnect(reason: "shutting down", at: at) == [
            .write(Self.irConfig, [0x00], withResponse: true),
            .write(Self.humConfig, [0x00], withResponse: true),
        ])
        #expect(driver.phase == .running(.switchingSensorsOff(reason: "shutting down")) && driver.session.deadline(of: .switchOff) == at + .seconds(3))
        #expect(driver.nextDeadline == at + .seconds(3))
        // Notifications still in flight are not readings any more.
        #expect(driver.receive(.value(Self.humData, [UInt8](hex: "3C4A 5A8A"), origin: .notification), at: at) == [])
        #expect(driver.receive(.writeCompleted(Self.irConfig), at: at) == [])
        #expect(driver.receive(.writeCompleted(Self.humConfig), at: at) == [.disconnect(reason: "shutting down")])
        #expect(driver.phase == .disconnecting(reason: "shutting down"))
        #expect(driver.receive(.disconnected(reason: "local host terminated"), at: at)
            == [.emit(.disconnected(reason: "local host terminated"))])
        #expect(driver.nextDeadline == nil)
        #expect(driver.requestDisconnect(reason: "again", at: at) == [], "nothing to switch off any more")
    }

    @Test func switchOffThatNeverCompletesStillDisconnects() {
        var driver = running()
        _ = driver.requestDisconnect(reason: "bye", at: Self.t0)
        let deadline = driver.nextDeadline!
        #expect(driver.handleDeadline(at: deadline - .milliseconds(1)) == [])
        #expect(driver.handleDeadline(at: deadline) == [.disconnect(reason: "bye")])
    }

    @Test func failedSwitchOffIsReportedAndTheLinkStillDropped() {
        var driver = running()
        _ = driver.requestDisconnect(reason: "bye", at: Self.t0)
        #expect(driver.receive(.operationFailed(.write(Self.humConfig), .timedOut), at: Self.t0)
            == [.emit(.operationFailed(.write(Self.humConfig), .timedOut)), .disconnect(reason: "bye")])
    }

    @Test func watchdogSwitchesOffThenDisconnects() {
        var driver = running()
        let deadline = driver.nextDeadline!
        #expect(deadline == Self.t0 + .seconds(30))
        #expect(driver.handleDeadline(at: deadline) == [
            .emit(.noData(since: Self.t0, duration: .seconds(30))),
            .write(Self.humConfig, [0x00], withResponse: true),
        ])
        #expect(driver.receive(.writeCompleted(Self.humConfig), at: deadline)
            == [.disconnect(reason: "no SensorTag measurement for 30 s")])
    }

    @Test func writeWithoutResponseConfigurationDisconnectsAtOnce() {
        var services = Self.firmware14
        services.services[SensorTagProfile.humidityService]![1] = DiscoveredCharacteristic(Self.humConfig, properties: .writeWithoutResponse)
        var driver = SensorTagDriver(device: "tag")
        #expect(driver.start(services, at: Self.t0).contains(.write(Self.humConfig, [0x01], withResponse: false)))
        _ = driver.receive(.subscribed(Self.humData), at: Self.t0)
        #expect(driver.requestDisconnect(reason: "bye", at: Self.t0)
            == [.write(Self.humConfig, [0x00], withResponse: false), .disconnect(reason: "bye")])
    }

    @Test func aFailedStartOperationEndsTheSession() {
        var driver = SensorTagDriver(device: "tag")
        _ = driver.start(Self.tag, at: Self.t0)
        let failure = OperationFailure.attError(code: 0x03)
        #expect(driver.receive(.operationFailed(.write(Self.humConfig), failure), at: Self.t0) == [
            .emit(.operationFailed(.write(Self.humConfig), failure)),
            .write(Self.humConfig, [0x00], withResponse: true),
        ])
        #expect(driver.phase == .running(.switchingSensorsOff(reason: "write \(Self.humConfig) failed: ATT error 0x03 (write not permitted)")))
        #expect(driver.session.deadline(of: .switchOff) == Self.t0 + .seconds(3))
    }

    @Test func registryEntry() throws {
        let driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "sensortag fridge temperature=ir-object period=2s ir-s0=5.593e-14 no-data-timeout=1m")
        let tag = try #require(driver as? SensorTagDriver)
        #expect(tag.device == "fridge")
        #expect(tag.configuration == .init(temperatureSource: .irObject, period: .seconds(2), s0: 5.593e-14, noDataTimeout: .seconds(60)))
        #expect(driver.profile == SensorTagProfile.profile)
        #expect(throws: TransmitterConfigurationError.invalidOption("temperature", value: "air", expected: "sht21, ir-ambient, ir-object")) {
            _ = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "sensortag temperature=air")
        }
        #expect(throws: TransmitterConfigurationError.invalidOption("ir-s0", value: "64", expected: "a TMP006 S0 such as 6.4e-14 or 5.593e-14")) {
            _ = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "sensortag ir-s0=64")
        }
    }
}
