import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a MiaoMiao bridge carrying a Libre 1 or a European Libre 2 /
/// 2 Plus sensor (messages in `MiaoMiao`, with the projects they were read from; FRAM in
/// `LibreFRAM`, deciphered first for a Libre 2 by `LibreBridgeFRAM`; profile in `MiaoMiaoProfile`).
///
/// On `start`: subscribe to the Nordic UART receive characteristic; once subscribed, write
/// `F0` (start reading, as xdripswift does when notifications are enabled). The bridge then
/// sends a data packet at once and every 5 minutes, in ~20-byte notifications that
/// `MiaoMiaoPacketAssembler` puts back together.
///
/// - A complete packet gives `info` (bridge battery, firmware, hardware, sensor UID) and, through
///   `LibreSensorSession`, sensor state and age, the live glucose with its trend, and history
///   backfill. A Libre 2 EU / 2 Plus EU FRAM is deciphered with the packet's sensor UID and
///   patchInfo (docs/protocols/libre2-fram.md §Through the bridges); a packet without patchInfo
///   is read as a Libre 1's. Any other family (US Gen2, US 14-day, Pro) is `incompatible`,
///   reported with every packet while the link stays up (see `receivePacket`).
/// - A packet that stops half-way, is oversized, malformed, or whose FRAM fails a CRC or a
///   sanity check is dropped with its reason and `F0` re-sent, at most `maximumRetries` times
///   in a row (a successful read resets the count); after that the driver waits for the
///   bridge's own next cycle, and the no-data watchdog has the last word.
/// - `0x32` new sensor: emit `newSensorDetected`, forget the old sensor's calibration and
///   history, write `D3 01` at once and `F0` `commandDelay` later (xdripswift waits 500 ms).
/// - `0x34` no sensor: emit `sensorNotDetected`.
/// - Watchdog: no usable FRAM for `noDataTimeout` (default 11 min, two missed 5-minute cycles)
///   → `noData` and disconnect, so the app reconnects.
public struct MiaoMiaoDriver: SessionDriver {
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

    public typealias Stage = LibreBridgeStage

    /// What the driver waits for, in the order it acts when both are due.
    public enum Timer: Hashable, Comparable, Sendable {
        /// The `F0` that follows a new-sensor acknowledgement, `commandDelay` later.
        case startReading
        /// The next notification of a packet under way (`MiaoMiaoPacketAssembler`).
        case packetGap
    }

    public static var profile: TransmitterProfile { MiaoMiaoProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>
    public private(set) var assembler: MiaoMiaoPacketAssembler
    /// Sensor-level state (calibration, backfill watermark); it survives reconnections.
    public private(set) var libre: LibreSensorSession
    /// `F0` re-sends since the last good read.
    public private(set) var retriesUsed = 0
    /// When the `F0` that follows a new-sensor acknowledgement is due.
    public var startReadingDue: MonotonicInstant? { session.deadline(of: .startReading) }
    public private(set) var sensorUID: [UInt8]?
    private var writeWithResponse = false

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.assembler = MiaoMiaoPacketAssembler(gapTimeout: configuration.packetGapTimeout)
        self.libre = LibreSensorSession(device: device, source: NordicUART.receive, configuration: configuration.session)
        self.session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    public var silence: String { "Libre reading from the MiaoMiao" }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? { NordicUART.incompatibility(discovered) }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        retriesUsed = 0
        writeWithResponse = NordicUART.writesWithResponse(discovered)
        return (.awaitingSubscription, [.subscribe(NordicUART.receive, indications: false)])
    }

    public mutating func sessionEnded() { assembler.reset() }

    /// Calibration belongs to the sensor, not the link: accepted even between connections.
    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        libre.calibrate(reference, takenAt: takenAt, at: now).map { .emit($0) }
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case .subscribed(NordicUART.receive):
            session.enter(.reading)
            session.armWatchdog(at: now)
            return [command(.startReading)]
        case let .value(NordicUART.receive, bytes, _):
            defer { followAssembler() }
            return receiveChunk(bytes, at: now)
        default:
            return []  // write completions, other characteristics, encryption: nothing to do
        }
    }

    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        operation == .subscribe(NordicUART.receive) ? "cannot subscribe to the MiaoMiao: \(failure)" : nil
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        switch timer {
        case .startReading:
            return [command(.startReading)]
        case .packetGap:
            defer { followAssembler() }
            guard let reason = assembler.handleDeadline(at: now) else { return [] }
            return retry(after: reason)
        }
    }

    // MARK: - Steps

    private func command(_ command: MiaoMiao.Command) -> DriverAction {
        .write(NordicUART.write, command.bytes, withResponse: writeWithResponse)
    }

    /// The packet-gap timer runs while the assembler waits for the rest of a packet.
    private mutating func followAssembler() {
        if let deadline = assembler.deadline { session.schedule(.packetGap, at: deadline) } else { session.cancel(.packetGap) }
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
            session.schedule(.startReading, at: now + configuration.commandDelay)
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
        do {
            fram = try LibreFRAM(decoding: LibreBridgeFRAM.plain(packet.fram, sensorUID: packet.sensorUID, patchInfo: packet.patchInfo))
        } catch { return actions + retry(after: "\(error)") }
        retriesUsed = 0
        session.feedWatchdog(at: now)
        return actions + libre.process(fram, sensorUID: packet.sensorUID, at: now).map { .emit($0) }
    }
}

extension MiaoMiaoDriver {
    /// The registry entry: `miaomiao [NAME] [no-data-timeout=11m]`.
    public static let transmitterType = TransmitterType(
        name: "miaomiao",
        summary: "MiaoMiao bridge for a FreeStyle Libre 1 or European Libre 2 sensor (Nordic UART)",
        declaration: .libre1Bridge,
        driver: MiaoMiaoDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> MiaoMiaoDriver in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(11 * 60))
        return MiaoMiaoDriver(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
