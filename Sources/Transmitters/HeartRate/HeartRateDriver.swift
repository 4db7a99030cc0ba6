import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for any Heart Rate Service strap or watch (profile in
/// `HeartRateProfile`).
///
/// On `start`: subscribe to Heart Rate Measurement notifications, read Body Sensor Location,
/// Battery Level and the Device Information strings the peer has, and subscribe to Battery
/// Level if it notifies. Measurements become `heartRate`, `rrIntervals` and `energyExpended`
/// readings; the rest becomes `info` events.
///
/// Pairing (some straps refuse until paired): the session parks refused operations, pairs, and
/// re-issues them (`SessionDriver`). A strap whose measurements stay refused, or cannot be
/// subscribed to, ends the session.
///
/// Watchdog: armed at `start` (so a subscription that never completes is caught too), re-armed
/// when the subscription is confirmed and after encryption, fed by every decodable measurement.
/// When it fires the driver emits `noData` and asks to disconnect so that the app reconnects;
/// straps often keep the link but stop sending when taken off.
public struct HeartRateDriver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        /// How long without a measurement, once started, before giving up on the link.
        public var noDataTimeout: Duration

        public init(noDataTimeout: Duration = .seconds(30)) { self.noDataTimeout = noDataTimeout }
    }

    /// A strap has one procedure: it measures, and the driver listens.
    public enum Stage: Hashable, Sendable {
        case measuring
    }

    public static var profile: TransmitterProfile { HeartRateProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Never>

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    private static let measurement = SIG.Characteristic.heartRateMeasurement
    private static let battery = SIG.Characteristic.batteryLevel
    private static let location = SIG.Characteristic.bodySensorLocation

    public var silence: String { "heart-rate measurement" }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? {
        guard let measurement = discovered.characteristic(Self.measurement, in: SIG.Service.heartRate) else {
            return "no Heart Rate Measurement (0x2A37) in service 0x180D"
        }
        return measurement.properties.contains(.notify) ? nil : "Heart Rate Measurement (0x2A37) does not notify"
    }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        // Subscribe first: the measurement stream is what the alarm depends on, the reads are
        // for the status page, and an authentication refusal should surface as early as possible.
        var actions: [DriverAction] = [.subscribe(Self.measurement, indications: false)]
        if discovered.characteristic(Self.location, in: SIG.Service.heartRate)?.properties.contains(.read) == true {
            actions.append(.read(Self.location))
        }
        let battery = discovered.characteristic(Self.battery, in: SIG.Service.battery)
        if battery?.properties.contains(.read) == true { actions.append(.read(Self.battery)) }
        for field in DeviceInformationString.allCases
        where discovered.characteristic(field.characteristic, in: SIG.Service.deviceInformation)?.properties.contains(.read) == true {
            actions.append(.read(field.characteristic))
        }
        if battery?.properties.contains(.notify) == true { actions.append(.subscribe(Self.battery, indications: false)) }
        return (.measuring, actions)
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .value(uuid, bytes, _):
            return receiveValue(uuid, bytes, at: now)
        case .subscribed(Self.measurement):
            session.armWatchdog(at: now)
            return []
        default:
            return []
        }
    }

    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        operation == .subscribe(Self.measurement) ? "cannot subscribe to heart-rate measurements: \(failure)" : nil
    }

    public func pairingRefusal(_ operation: GATTOperation, reason: String) -> String? {
        operation == .subscribe(Self.measurement) ? "pairing failed, so heart-rate measurements are refused: \(reason)" : nil
    }

    // MARK: - Values

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        do throws(WireError) {
            switch uuid {
            case Self.measurement:
                let measurement = try HeartRateMeasurement(decoding: bytes)
                session.feedWatchdog(at: now)
                return readings(from: measurement, at: now).map { .emit(.reading($0)) }
            case Self.battery:
                return [.emit(.info(TransmitterInfo(battery: try BatteryLevel.decode(bytes))))]
            case Self.location:
                return [.emit(.info(TransmitterInfo(bodySensorLocation: try BodySensorLocation(decoding: bytes))))]
            default:
                guard let field = DeviceInformationString(characteristic: uuid) else { return [] }
                var info = TransmitterInfo()
                info.set(field, to: DeviceInformationString.decode(bytes))
                return [.emit(.info(info))]
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString)"))]
        }
    }

    private func readings(from measurement: HeartRateMeasurement, at now: MonotonicInstant) -> [Reading] {
        var values: [Reading.Value] = [.heartRate(measurement.heartRate, contact: measurement.contact)]
        if !measurement.rrIntervals.isEmpty { values.append(.rrIntervals(measurement.rrIntervals)) }
        if let energy = measurement.energyExpended { values.append(.energyExpended(energy)) }
        return values.map { Reading(device: device, value: $0, time: .monotonic(now)) }
    }
}

extension HeartRateDriver {
    /// The registry entry: `heart-rate [NAME] [no-data-timeout=30s]`.
    public static let transmitterType = TransmitterType(
        name: "heart-rate",
        summary: "any Bluetooth Heart Rate Service strap or watch (service 0x180D)",
        declaration: TransmitterDeclaration(category: .heartRate, fuzzTarget: "heart-rate"),
        driver: HeartRateDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> HeartRateDriver in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(30))
        return HeartRateDriver(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
