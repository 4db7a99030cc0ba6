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
/// Pairing: an operation refused with insufficient authentication/encryption is parked, the
/// driver emits `needsPairing` and asks for `requestPairing` once, and re-issues every parked
/// operation after `encrypted`. A second refusal after encryption is reported, not retried,
/// so a peer that never accepts us cannot loop.
///
/// Watchdog: armed at `start` (so a subscription that never completes is caught too), re-armed
/// when the subscription is confirmed and after encryption, fed by every decodable measurement.
/// When it fires the driver emits `noData` and asks to disconnect so that the app reconnects;
/// straps often keep the link but stop sending when taken off.
public struct HeartRateDriver: TransmitterDriver {
    public struct Configuration: Hashable, Sendable {
        /// How long without a measurement, once started, before giving up on the link.
        public var noDataTimeout: Duration

        public init(noDataTimeout: Duration = .seconds(30)) { self.noDataTimeout = noDataTimeout }
    }

    /// Where the session is.
    public enum Phase: Hashable, Sendable {
        case notStarted
        case running
        /// Pairing requested; parked operations wait for `encrypted`.
        case awaitingEncryption
        /// The driver asked to disconnect and waits for the host to report it.
        case disconnecting(reason: String)
        case disconnected(reason: String)
    }

    public static var profile: TransmitterProfile { HeartRateProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public private(set) var phase: Phase = .notStarted
    /// Operations sent to the host and not yet answered, oldest first.
    public private(set) var pending: [GATTOperation] = []
    /// Operations refused for lack of encryption, re-issued after `encrypted`.
    public private(set) var parkedUntilEncrypted: [GATTOperation] = []
    private var encryptedThisSession = false
    private var watchdog: NoDataWatchdog

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.watchdog = NoDataWatchdog(timeout: configuration.noDataTimeout)
    }

    public var nextDeadline: MonotonicInstant? {
        switch phase {
        case .running, .awaitingEncryption: watchdog.deadline
        case .notStarted, .disconnecting, .disconnected: nil
        }
    }

    private static let measurement = SIG.Characteristic.heartRateMeasurement
    private static let battery = SIG.Characteristic.batteryLevel
    private static let location = SIG.Characteristic.bodySensorLocation

    public mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] {
        pending = []
        parkedUntilEncrypted = []
        encryptedThisSession = false
        // `connected` only once the peer proves compatible: the app remembers a transmitter's
        // address on `connected`, and must not bind itself to a neighbour's kettle.
        guard let measurement = discovered.characteristic(Self.measurement, in: SIG.Service.heartRate),
              measurement.properties.contains(.notify)
        else {
            let reason = discovered.characteristic(Self.measurement, in: SIG.Service.heartRate) == nil
                ? "no Heart Rate Measurement (0x2A37) in service 0x180D"
                : "Heart Rate Measurement (0x2A37) does not notify"
            phase = .disconnecting(reason: reason)
            watchdog.disarm()
            return [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)]
        }
        phase = .running
        watchdog.arm(at: now)

        // Subscribe first: the measurement stream is what the alarm depends on, the reads are
        // for the status page, and an authentication refusal should surface as early as possible.
        var operations: [GATTOperation] = [.subscribe(Self.measurement)]
        if discovered.characteristic(Self.location, in: SIG.Service.heartRate)?.properties.contains(.read) == true {
            operations.append(.read(Self.location))
        }
        let battery = discovered.characteristic(Self.battery, in: SIG.Service.battery)
        if battery?.properties.contains(.read) == true { operations.append(.read(Self.battery)) }
        for field in DeviceInformationString.allCases
        where discovered.characteristic(field.characteristic, in: SIG.Service.deviceInformation)?.properties.contains(.read) == true {
            operations.append(.read(field.characteristic))
        }
        if battery?.properties.contains(.notify) == true { operations.append(.subscribe(Self.battery)) }
        return [.emit(.connected)] + issue(operations)
    }

    public mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        if case let .disconnected(reason) = input { return disconnected(reason: reason) }
        guard isActive else { return [] }
        switch input {
        case let .value(uuid, bytes, origin):
            if origin == .read { complete(.read(uuid)) }
            return receiveValue(uuid, bytes, at: now)
        case let .subscribed(uuid):
            complete(.subscribe(uuid))
            if uuid == Self.measurement { watchdog.arm(at: now) }
            return []
        case let .writeCompleted(uuid):
            complete(.write(uuid))
            return []
        case let .operationFailed(operation, failure):
            complete(operation)
            return operationFailed(operation, failure)
        case .encrypted:
            encryptedThisSession = true
            guard phase == .awaitingEncryption else { return [] }
            phase = .running
            watchdog.arm(at: now)
            let retry = parkedUntilEncrypted
            parkedUntilEncrypted = []
            return [.emit(.paired)] + issue(retry)
        case let .pairingFailed(reason):
            guard phase == .awaitingEncryption else { return [.emit(.pairingFailed(reason: reason))] }
            let abandoned = parkedUntilEncrypted
            parkedUntilEncrypted = []
            phase = .running
            var actions: [DriverAction] = [.emit(.pairingFailed(reason: reason))]
            if abandoned.contains(.subscribe(Self.measurement)) {
                actions += stop(reason: "pairing failed, so heart-rate measurements are refused: \(reason)")
            }
            return actions
        case .disconnected:
            return []  // handled above
        case .calibration:
            return []  // heart rate has nothing to calibrate
        }
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] {
        guard isActive, let since = watchdog.since, watchdog.expire(at: now) else { return [] }
        let reason = "no heart-rate measurement for \(Int((now - since).seconds)) s"
        return [.emit(.noData(since: since, duration: now - since))] + stop(reason: reason)
    }

    // MARK: - Steps

    private var isActive: Bool { phase == .running || phase == .awaitingEncryption }

    private mutating func issue(_ operations: [GATTOperation]) -> [DriverAction] {
        pending += operations
        return operations.compactMap { operation in
            switch operation {
            case let .read(uuid): .read(uuid)
            case let .subscribe(uuid): .subscribe(uuid, indications: false)
            case .write: nil  // a heart-rate strap takes no commands from us
            }
        }
    }

    private mutating func complete(_ operation: GATTOperation) {
        if let index = pending.firstIndex(of: operation) { pending.remove(at: index) }
    }

    private mutating func stop(reason: String) -> [DriverAction] {
        phase = .disconnecting(reason: reason)
        watchdog.disarm()
        pending = []
        parkedUntilEncrypted = []
        return [.disconnect(reason: reason)]
    }

    private mutating func disconnected(reason: String) -> [DriverAction] {
        guard phase != .notStarted else { return [] }
        if case .disconnected = phase { return [] }
        phase = .disconnected(reason: reason)
        watchdog.disarm()
        pending = []
        parkedUntilEncrypted = []
        return [.emit(.disconnected(reason: reason))]
    }

    private mutating func operationFailed(_ operation: GATTOperation, _ failure: OperationFailure) -> [DriverAction] {
        if failure.isCuredByPairing && !encryptedThisSession {
            parkedUntilEncrypted.append(operation)
            guard phase != .awaitingEncryption else { return [] }  // pairing already requested
            phase = .awaitingEncryption
            return [.emit(.needsPairing), .requestPairing]
        }
        var actions: [DriverAction] = [.emit(.operationFailed(operation, failure))]
        if operation == .subscribe(Self.measurement) {
            actions += stop(reason: "cannot subscribe to heart-rate measurements: \(failure)")
        }
        return actions
    }

    private mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        do throws(WireError) {
            switch uuid {
            case Self.measurement:
                let measurement = try HeartRateMeasurement(decoding: bytes)
                watchdog.feed(at: now)
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
        driver: HeartRateDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> HeartRateDriver in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(30))
        return HeartRateDriver(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
