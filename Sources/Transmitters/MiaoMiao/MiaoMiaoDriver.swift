import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a MiaoMiao bridge carrying a Libre 1 sensor (protocols.md
/// §2.1, §3; profile in `MiaoMiaoProfile`).
///
/// On `start`: subscribe to the Nordic UART receive characteristic; once subscribed, write
/// `F0` (start reading, as xdripswift does when notifications are enabled). The bridge then
/// sends a data packet at once and every 5 minutes, in ~20-byte notifications that
/// `MiaoMiaoPacketAssembler` puts back together.
///
/// - A complete packet gives `info` (bridge battery, firmware, hardware, sensor UID) and, through
///   `LibreSensorSession`, sensor state and age, the live glucose with its trend, and history
///   backfill. A sensor family other than Libre 1 (patchInfo) is `incompatible`, reported with
///   every packet while the link stays up (see `receivePacket`).
/// - A packet that stops half-way, is oversized, malformed, or whose FRAM fails a CRC or a
///   sanity check is dropped with its reason and `F0` re-sent, at most `maximumRetries` times
///   in a row (a successful read resets the count); after that the driver waits for the
///   bridge's own next cycle, and the no-data watchdog has the last word.
/// - `0x32` new sensor: emit `newSensorDetected`, forget the old sensor's calibration and
///   history, write `D3 01` at once and `F0` `commandDelay` later (xdripswift waits 500 ms).
/// - `0x34` no sensor: emit `sensorNotDetected`.
/// - Watchdog: no usable FRAM for `noDataTimeout` (default 11 min, two missed 5-minute cycles)
///   → `noData` and disconnect, so the app reconnects.
public struct MiaoMiaoDriver: TransmitterDriver {
    public struct Configuration: Hashable, Sendable {
        public var noDataTimeout: Duration
        public var packetGapTimeout: Duration
        public var maximumRetries: Int
        public var commandDelay: Duration
        public var session: LibreSensorSession.Configuration

        public init(noDataTimeout: Duration = .seconds(11 * 60), packetGapTimeout: Duration = .seconds(3), maximumRetries: Int = 3,
                    commandDelay: Duration = .milliseconds(500), session: LibreSensorSession.Configuration = .init()) {
            self.noDataTimeout = noDataTimeout
            self.packetGapTimeout = packetGapTimeout
            self.maximumRetries = maximumRetries
            self.commandDelay = commandDelay
            self.session = session
        }
    }

    public enum Phase: Hashable, Sendable {
        case notStarted
        case awaitingSubscription
        /// Subscribed; `F0` sent, packets flowing.
        case reading
        case disconnecting(reason: String)
        case disconnected(reason: String)
    }

    public static var profile: TransmitterProfile { MiaoMiaoProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public private(set) var phase: Phase = .notStarted
    public private(set) var assembler: MiaoMiaoPacketAssembler
    /// Sensor-level state (calibration, backfill watermark); it survives reconnections.
    public private(set) var libre: LibreSensorSession
    /// `F0` re-sends since the last good read.
    public private(set) var retriesUsed = 0
    /// When the `F0` that follows a new-sensor acknowledgement is due.
    public private(set) var startReadingDue: MonotonicInstant?
    public private(set) var sensorUID: [UInt8]?
    private var writeWithResponse = false
    private var watchdog: NoDataWatchdog

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.assembler = MiaoMiaoPacketAssembler(gapTimeout: configuration.packetGapTimeout)
        self.libre = LibreSensorSession(device: device, source: NordicUART.receive, configuration: configuration.session)
        self.watchdog = NoDataWatchdog(timeout: configuration.noDataTimeout)
    }

    public var nextDeadline: MonotonicInstant? {
        guard isActive else { return nil }
        return earliest(watchdog.deadline, assembler.deadline, startReadingDue)
    }

    private var isActive: Bool { phase == .awaitingSubscription || phase == .reading }

    public mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] {
        assembler.reset()
        retriesUsed = 0
        startReadingDue = nil
        if let reason = Self.incompatibility(discovered) {
            phase = .disconnecting(reason: reason)
            watchdog.disarm()
            return [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)]
        }
        let write = discovered.characteristic(NordicUART.write, in: NordicUART.service)!
        writeWithResponse = !write.properties.contains(.writeWithoutResponse)
        phase = .awaitingSubscription
        watchdog.arm(at: now)
        return [.emit(.connected), .subscribe(NordicUART.receive, indications: false)]
    }

    /// Why a peer cannot be a MiaoMiao (or Bubble: same UART), or nil.
    static func incompatibility(_ discovered: DiscoveredServices) -> String? {
        guard let receive = discovered.characteristic(NordicUART.receive, in: NordicUART.service) else {
            return "no Nordic UART receive characteristic (6E400003) in service 6E400001"
        }
        guard receive.properties.contains(.notify) else { return "Nordic UART receive characteristic does not notify" }
        guard let write = discovered.characteristic(NordicUART.write, in: NordicUART.service) else {
            return "no Nordic UART write characteristic (6E400002) in service 6E400001"
        }
        guard !write.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else {
            return "Nordic UART write characteristic is not writable"
        }
        return nil
    }

    public mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case let .disconnected(reason):
            guard phase != .notStarted else { return [] }
            if case .disconnected = phase { return [] }
            phase = .disconnected(reason: reason)
            watchdog.disarm()
            assembler.reset()
            startReadingDue = nil
            return [.emit(.disconnected(reason: reason))]
        case let .calibration(reference, takenAt):
            // Calibration belongs to the sensor, not the link: accepted even between connections.
            return libre.calibrate(reference, takenAt: takenAt, at: now).map { .emit($0) }
        default:
            break
        }
        guard isActive else { return [] }
        switch input {
        case .subscribed(NordicUART.receive):
            phase = .reading
            watchdog.arm(at: now)
            return [command(.startReading)]
        case let .value(NordicUART.receive, bytes, _):
            return receiveChunk(bytes, at: now)
        case let .operationFailed(operation, failure):
            var actions: [DriverAction] = [.emit(.operationFailed(operation, failure))]
            if operation == .subscribe(NordicUART.receive) {
                actions += stop(reason: "cannot subscribe to the MiaoMiao: \(failure)")
            }
            return actions
        case let .pairingFailed(reason):
            return [.emit(.pairingFailed(reason: reason))]
        default:
            return []  // write completions, other characteristics, encryption: nothing to do
        }
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] {
        guard isActive else { return [] }
        var actions: [DriverAction] = []
        if let due = startReadingDue, now >= due {
            startReadingDue = nil
            actions.append(command(.startReading))
        }
        if let reason = assembler.handleDeadline(at: now) {
            actions += retry(after: reason)
        }
        if let since = watchdog.since, watchdog.expire(at: now) {
            let reason = "no Libre reading from the MiaoMiao for \(Int((now - since).seconds)) s"
            actions += [.emit(.noData(since: since, duration: now - since))] + stop(reason: reason)
        }
        return actions
    }

    // MARK: - Steps

    private func command(_ command: MiaoMiao.Command) -> DriverAction {
        .write(NordicUART.write, command.bytes, withResponse: writeWithResponse)
    }

    private mutating func stop(reason: String) -> [DriverAction] {
        phase = .disconnecting(reason: reason)
        watchdog.disarm()
        assembler.reset()
        startReadingDue = nil
        return [.disconnect(reason: reason)]
    }

    /// Reports a lost read and asks again, within the retry budget.
    private mutating func retry(after reason: String) -> [DriverAction] {
        guard retriesUsed < configuration.maximumRetries else {
            return [.emit(.malformedValue(NordicUART.receive, reason: "\(reason); no retries left, waiting for the MiaoMiao's next cycle"))]
        }
        retriesUsed += 1
        return [.emit(.malformedValue(NordicUART.receive, reason: "\(reason); re-sent F0 (retry \(retriesUsed) of \(configuration.maximumRetries))")),
                command(.startReading)]
    }

    private mutating func receiveChunk(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = []
        for output in assembler.receive(bytes, at: now) {
            switch output {
            case let .dropped(reason): actions += retry(after: reason)
            case let .message(message): actions += receiveMessage(message, at: now)
            case let .packet(packet): actions += receivePacket(packet, at: now)
            }
        }
        return actions
    }

    private mutating func receiveMessage(_ message: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        switch message.first.flatMap(MiaoMiao.ResponseCode.init(rawValue:)) {
        case .newSensor:
            libre.sensorChanged()
            sensorUID = nil
            startReadingDue = now + configuration.commandDelay
            return [.emit(.newSensorDetected), command(.confirmNewSensor(true))]
        case .noSensor:
            return [.emit(.sensorNotDetected)]
        case .intervalResponse:
            // We never change the interval, but a bridge that says it refused one is news.
            return message == [0xD1, 0x01] ? [] : [.emit(.malformedValue(NordicUART.receive, reason: "MiaoMiao reading-interval response \(message.hexString)"))]
        case .dataPacket, nil:
            // .dataPacket cannot reach here (the assembler takes it); unknown bytes are reported.
            return [.emit(.malformedValue(NordicUART.receive, reason: "unknown MiaoMiao message \(message.hexString)"))]
        }
    }

    private mutating func receivePacket(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let packet: MiaoMiaoPacket
        do { packet = try MiaoMiaoPacket(decoding: bytes) } catch { return retry(after: "\(error)") }
        var actions: [DriverAction] = [.emit(.info(TransmitterInfo(
            battery: packet.battery, serialNumber: packet.sensorUIDHex, firmware: packet.firmwareVersion, hardware: packet.hardwareVersion)))]
        if let known = sensorUID, known != packet.sensorUID {
            // Swapped while we were away: the bridge's 0x32 went to nobody.
            libre.sensorChanged()
            actions.append(.emit(.newSensorDetected))
        }
        sensorUID = packet.sensorUID
        if let reason = packet.patchInfo?.unsupportedReason {
            // The bridge is fine, the sensor is not: the link stays up so that a sensor swap
            // (0x32) is heard, and the event repeats with every packet. Disconnecting, as
            // `incompatible` normally implies, made the app reconnect every two seconds in a
            // run against the rig. The watchdog is not fed, so no-data still fires.
            return actions + [.emit(.incompatible(reason: reason))]
        }
        let fram: LibreFRAM
        do { fram = try LibreFRAM(decoding: packet.fram) } catch { return actions + retry(after: "\(error)") }
        retriesUsed = 0
        watchdog.feed(at: now)
        return actions + libre.process(fram, sensorUID: packet.sensorUID, at: now).map { .emit($0) }
    }
}

extension MiaoMiaoDriver {
    /// The registry entry: `miaomiao [NAME] [no-data-timeout=11m]`.
    public static let transmitterType = TransmitterType(
        name: "miaomiao",
        summary: "MiaoMiao bridge for a FreeStyle Libre 1 sensor (Nordic UART)",
        driver: MiaoMiaoDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> MiaoMiaoDriver in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(11 * 60))
        return MiaoMiaoDriver(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
