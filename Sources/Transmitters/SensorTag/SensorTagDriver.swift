import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a TI SensorTag CC2541 (profile in `SensorTagProfile`).
///
/// The tag's sensors are off until a central turns them on, and stay on (draining its coin
/// cell) until someone turns them off, so the session is: on `start`, for each sensor used,
/// write the period (if the firmware has one), subscribe to its data, then enable it; decode
/// notifications into readings; and before disconnecting of its own accord (`requestDisconnect`,
/// or the no-data watchdog) write 0x00 to each configuration and wait for the writes (at most
/// `switchOffTimeout`) before asking for the disconnection. A link that drops under us cannot
/// be switched off: the tag's own firmware turns sensors off when the link goes.
///
/// Which temperature is "the" temperature: the SHT21 in the humidity sensor (`.humiditySensor`,
/// the default: it measures the air, ±0.3 °C), the TMP006 die (`.irAmbient`) or the IR object
/// temperature (`.irObject`, e.g. aimed at an insulin pen). The IR sensor is only switched on
/// when one of its temperatures is the one reported.
public struct SensorTagDriver: SessionDriver {
    public enum TemperatureSource: String, Hashable, Sendable, CaseIterable {
        case humiditySensor = "sht21"
        case irAmbient = "ir-ambient"
        case irObject = "ir-object"
    }

    public struct Configuration: Hashable, Sendable {
        public var temperatureSource: TemperatureSource
        /// The measurement period written to each sensor (clamped to 100 ms – 2.55 s).
        public var period: Duration
        /// The TMP006 S0 calibration factor (see `SensorTagIRTemperature` for the disagreement).
        public var s0: Double
        public var noDataTimeout: Duration
        /// How long to wait for the switch-off writes before disconnecting anyway.
        public var switchOffTimeout: Duration

        public init(temperatureSource: TemperatureSource = .humiditySensor, period: Duration = .seconds(1),
                    s0: Double = SensorTagIRTemperature.defaultS0, noDataTimeout: Duration = .seconds(30),
                    switchOffTimeout: Duration = .seconds(3)) {
            self.temperatureSource = temperatureSource
            self.period = period
            self.s0 = s0
            self.noDataTimeout = noDataTimeout
            self.switchOffTimeout = switchOffTimeout
        }
    }

    /// Where the session is.
    public enum Stage: Hashable, Sendable {
        case measuring
        /// Switch-off writes sent; disconnect when they complete or at `.switchOff`.
        case switchingSensorsOff(reason: String)
    }

    public enum Timer: Hashable, Comparable, Sendable {
        /// The end of the wait for the switch-off writes.
        case switchOff
    }

    /// One sensor the driver uses.
    struct Sensor: Hashable, Sendable {
        var data: BluetoothUUID
        var configuration: BluetoothUUID
        var period: BluetoothUUID
        var service: BluetoothUUID
    }

    static let ir = Sensor(data: SensorTagProfile.irTemperatureData, configuration: SensorTagProfile.irTemperatureConfiguration,
                           period: SensorTagProfile.irTemperaturePeriod, service: SensorTagProfile.irTemperatureService)
    static let humidity = Sensor(data: SensorTagProfile.humidityData, configuration: SensorTagProfile.humidityConfiguration,
                                 period: SensorTagProfile.humidityPeriod, service: SensorTagProfile.humidityService)

    public static var profile: TransmitterProfile { SensorTagProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>
    private var sensors: [Sensor] = []
    /// Whether each configuration write is acknowledged (write request) or not (write command).
    private var writesWithResponse: [BluetoothUUID: Bool] = [:]

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    public var silence: String { "SensorTag measurement" }

    /// The sensors the configured temperature needs: the IR sensor is switched on only when one
    /// of its temperatures is the one reported.
    private var sensorsUsed: [Sensor] { configuration.temperatureSource == .humiditySensor ? [Self.humidity] : [Self.ir, Self.humidity] }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        sensorsUsed.lazy.compactMap { incompatibility(of: $0, in: discovered) }.first
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        sensors = sensorsUsed
        writesWithResponse = [:]
        for sensor in sensors {
            let configuration = discovered.characteristic(sensor.configuration, in: sensor.service)
            writesWithResponse[sensor.configuration] = configuration?.properties.contains(.write) ?? true
        }
        var actions: [DriverAction] = []
        let period = SensorTagProfile.periodByte(configuration.period)
        for sensor in sensors {
            // Period first, so the first measurement already comes at the configured rate;
            // subscribe before enabling, so the first measurement is not missed.
            if let periodCharacteristic = discovered.characteristic(sensor.period, in: sensor.service),
               !periodCharacteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse]) {
                actions.append(write(sensor.period, [period], withResponse: periodCharacteristic.properties.contains(.write)))
            }
            actions.append(.subscribe(sensor.data, indications: false))
            actions.append(write(sensor.configuration, SensorTagProfile.enable))
        }
        return (.measuring, actions)
    }

    /// Switches the sensors off, then asks the host to disconnect: the way to end a session
    /// without leaving the tag measuring (and draining its battery) for nobody.
    public mutating func requestDisconnect(reason: String, at now: MonotonicInstant) -> [DriverAction] {
        guard session.stage == .measuring else { return [] }
        session.disarmWatchdog()
        session.abandonPending()
        session.enter(.switchingSensorsOff(reason: reason))
        session.schedule(.switchOff, at: now + configuration.switchOffTimeout)
        return session.track(sensors.map { write($0.configuration, SensorTagProfile.disable) }) + disconnectIfSwitchedOff()
    }

    /// Every way the driver ends a session switches the sensors off first.
    public mutating func end(reason: String, at now: MonotonicInstant) -> [DriverAction] { requestDisconnect(reason: reason, at: now) }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .value(uuid, bytes, _) where session.stage == .measuring:
            return receiveValue(uuid, bytes, at: now)
        case .writeCompleted:
            return disconnectIfSwitchedOff()
        default:
            return []  // the SensorTag has no security and nothing to calibrate
        }
    }

    /// A switch-off write that fails is reported, and the link dropped all the same.
    public mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure, at now: MonotonicInstant) -> [DriverAction] {
        disconnectIfSwitchedOff()
    }

    /// Every operation the driver issues is needed for readings: without it the session is
    /// pointless, so it ends (the app reconnects with backoff).
    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        session.stage == .measuring ? "\(operation) failed: \(failure)" : nil
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        guard case let .switchingSensorsOff(reason)? = session.stage else { return [] }
        return session.stop(reason: reason)
    }

    // MARK: - Steps

    /// Why the tag cannot serve `sensor`: data that does not notify, or a configuration that
    /// cannot be written (without it the sensor stays off).
    private func incompatibility(of sensor: Sensor, in discovered: DiscoveredServices) -> String? {
        guard discovered.characteristic(sensor.data, in: sensor.service)?.properties.contains(.notify) == true else {
            return "\(sensor.data) is missing or does not notify"
        }
        guard let configuration = discovered.characteristic(sensor.configuration, in: sensor.service),
              !configuration.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
            return "\(sensor.configuration) is missing or not writable"
        }
        return nil
    }

    private func write(_ uuid: BluetoothUUID, _ bytes: [UInt8], withResponse: Bool? = nil) -> DriverAction {
        .write(uuid, bytes, withResponse: withResponse ?? writesWithResponse[uuid] ?? true)
    }

    private mutating func disconnectIfSwitchedOff() -> [DriverAction] {
        guard case let .switchingSensorsOff(reason)? = session.stage, session.pending.isEmpty else { return [] }
        return session.stop(reason: reason)
    }

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        var values: [Reading.Value] = []
        do throws(WireError) {
            switch uuid {
            case SensorTagProfile.irTemperatureData:
                let data = try SensorTagIRTemperature(decoding: bytes)
                switch configuration.temperatureSource {
                case .irAmbient: values.append(.temperature(data.ambient))
                case .irObject:
                    guard let object = data.object(s0: configuration.s0) else {
                        return [.emit(.malformedValue(uuid, reason: "no object temperature solves the TMP006 model for \(bytes.hexString)"))]
                    }
                    values.append(.temperature(object))
                case .humiditySensor: return []
                }
            case SensorTagProfile.humidityData:
                let data = try SensorTagHumidity(decoding: bytes)
                guard !data.isEmpty else {
                    return [.emit(.malformedValue(uuid, reason: "all zero: the SHT21 has not measured yet"))]
                }
                if configuration.temperatureSource == .humiditySensor { values.append(.temperature(data.temperature)) }
                values.append(.humidity(data.relativeHumidity))
            default:
                return []
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString)"))]
        }
        session.feedWatchdog(at: now)
        return values.map { .emit(.reading(Reading(device: device, value: $0, time: .monotonic(now)))) }
    }
}

extension SensorTagDriver {
    /// The registry entry: `sensortag [NAME] [temperature=sht21|ir-ambient|ir-object]
    /// [period=1s] [ir-s0=6.4e-14] [no-data-timeout=30s]`.
    public static let transmitterType = TransmitterType(
        name: "sensortag",
        summary: "TI SensorTag CC2541: SHT21 humidity and temperature, TMP006 IR temperature",
        declaration: TransmitterDeclaration(category: .thermometer, fuzzTarget: "sensortag"),
        driver: SensorTagDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> SensorTagDriver in
        try configuration.rejectUnknownOptions(known: ["temperature", "period", "ir-s0", "no-data-timeout"])
        var settings = Configuration()
        if let text = configuration.options["temperature"] {
            guard let source = TemperatureSource(rawValue: text) else {
                throw .invalidOption("temperature", value: text, expected: TemperatureSource.allCases.map(\.rawValue).joined(separator: ", "))
            }
            settings.temperatureSource = source
        }
        settings.period = try configuration.duration("period", default: settings.period)
        if let text = configuration.options["ir-s0"] {
            guard let s0 = Double(text), s0 > 0, s0 < 1e-12 else {
                throw .invalidOption("ir-s0", value: text, expected: "a TMP006 S0 such as 6.4e-14 or 5.593e-14")
            }
            settings.s0 = s0
        }
        settings.noDataTimeout = try configuration.duration("no-data-timeout", default: settings.noDataTimeout)
        return SensorTagDriver(device: configuration.device, configuration: settings)
    }
}
