import Bluetooth
import Clocks
import Readings
import Wire

/// The session state machine for a Bubble bridge carrying a Libre 1 or a European Libre 2 /
/// 2 Plus sensor (messages in `Bubble`, with the projects they were read from; FRAM in
/// `LibreFRAM`, deciphered first for a Libre 2 by `LibreBridgeFRAM`; profile in `BubbleProfile`).
///
/// On `start`: subscribe to the Nordic UART receive characteristic; once subscribed, write the
/// start command (`00 <app> 05`). The bridge answers with its info message (`0x80`: firmware,
/// battery, hardware), to which the driver replies with the request-data command; then come the
/// sensor UID (`0xC0`), patchInfo (`0xC1`) and the FRAM in `0x82` chunks, each carrying payload
/// from byte 4, accumulated until 344 bytes are in. Bytes beyond 344 are padding (xDrip
/// reserves 8 "footer" bytes after the FRAM) and are ignored, whether they share the last
/// chunk or follow in chunks of their own within `packetGapTimeout`.
///
/// - A data stream that stops half-way (no chunk for `packetGapTimeout`), a FRAM that fails its
///   checks, or a malformed message is reported with its reason and the request-data command
///   re-sent, at most `maximumRetries` times in a row.
/// - A Libre 2 EU / 2 Plus EU FRAM (patchInfo family) arrives as the sensor stores it and is
///   deciphered with the `0xC0` UID and `0xC1` patchInfo of the same cycle
///   (docs/protocols/libre2-fram.md §Through the bridges). `0x88` chunks, which a Bubble on
///   firmware 2.6 or later sends already deciphered, are read as plain FRAM (Vigil asks with
///   `02` and should not get them, but their CRCs say whether they are plain); `0x8C`, which no
///   source describes, is reported.
/// - Any other family (US Gen2, US 14-day, Pro) is `incompatible`, reported each cycle; the
///   link stays up so a sensor swap is seen.
/// - The Bubble has no "new sensor" message: a sensor UID different from the last one is a new
///   sensor (`newSensorDetected`, calibration and backfill forgotten).
/// - `0xBF`: `sensorNotDetected`.
/// - Watchdog: no usable FRAM for `noDataTimeout` → `noData` and disconnect.
public struct BubbleDriver: SessionDriver {
    public struct Configuration: Hashable, Sendable {
        public var noDataTimeout: Duration
        public var packetGapTimeout: Duration
        public var maximumRetries: Int
        /// Byte 1 of every command (see `Bubble`): the projects disagree; xDrip's 0x01 by default.
        public var appID: UInt8
        public var intervalMinutes: UInt8
        public var session: LibreSensorSession.Configuration

        public init(noDataTimeout: Duration = .seconds(11 * 60), packetGapTimeout: Duration = .seconds(3), maximumRetries: Int = 3,
                    appID: UInt8 = 0x01, intervalMinutes: UInt8 = 5, session: LibreSensorSession.Configuration = .init()) {
            self.noDataTimeout = noDataTimeout
            self.packetGapTimeout = packetGapTimeout
            self.maximumRetries = maximumRetries
            self.appID = appID
            self.intervalMinutes = intervalMinutes
            self.session = session
        }
    }

    public typealias Stage = LibreBridgeStage

    public enum Timer: Hashable, Comparable, Sendable {
        /// The next chunk of a FRAM under way.
        case packetGap
    }

    public static var profile: TransmitterProfile { BubbleProfile.profile }

    public let device: DeviceID
    public let configuration: Configuration
    public var session: DriverSession<Stage, Timer>
    public private(set) var libre: LibreSensorSession
    public private(set) var firmware: Bubble.Version?
    public private(set) var sensorUID: [UInt8]?
    /// The `0xC1` patchInfo of this cycle (cleared by the info message that starts one): it
    /// says whether the FRAM is deciphered, and with the UID it is the key.
    public private(set) var patchInfo: LibrePatchInfo?
    /// FRAM bytes received so far in this read.
    public private(set) var fram: [UInt8] = []
    /// Whether this read comes in `0x88` chunks, which the Bubble deciphered itself.
    private var framIsPlain = false
    public private(set) var retriesUsed = 0
    /// Set by the patchInfo of a family Vigil does not decrypt until the next info message: the
    /// FRAM that follows is ignored rather than reported as a CRC failure.
    public private(set) var sensorUnsupported = false
    /// Chunks of a burst whose FRAM is already complete are footer padding until this instant
    /// (pushed on by each such chunk; cleared when we ask for data again).
    private var trailingChunksUntil: MonotonicInstant?
    private var writeWithResponse = false

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        self.libre = LibreSensorSession(device: device, source: NordicUART.receive, configuration: configuration.session)
        self.session = DriverSession(noDataTimeout: configuration.noDataTimeout)
    }

    public var silence: String { "Libre reading from the Bubble" }

    public func incompatibility(_ discovered: DiscoveredServices) -> String? { NordicUART.incompatibility(discovered) }

    public mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
        retriesUsed = 0
        sensorUnsupported = false
        writeWithResponse = NordicUART.writesWithResponse(discovered)
        return (.awaitingSubscription, [.subscribe(NordicUART.receive, indications: false)])
    }

    public mutating func sessionEnded() { resetRead() }

    public mutating func calibrate(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, at now: MonotonicInstant) -> [DriverAction] {
        libre.calibrate(reference, takenAt: takenAt, at: now).map { .emit($0) }
    }

    public mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        switch input {
        case .subscribed(NordicUART.receive):
            session.enter(.reading)
            session.armWatchdog(at: now)
            return [command(.start(appID: configuration.appID, intervalMinutes: configuration.intervalMinutes))]
        case let .value(NordicUART.receive, bytes, _):
            return receiveMessage(bytes, at: now)
        default:
            return []
        }
    }

    public func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
        operation == .subscribe(NordicUART.receive) ? "cannot subscribe to the Bubble: \(failure)" : nil
    }

    public mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
        let reason = "Bubble data stopped after \(fram.count) of \(LibreFRAM.byteCount) FRAM bytes (no chunk for \(Int(configuration.packetGapTimeout.seconds)) s)"
        resetRead()
        return retry(after: reason)
    }

    // MARK: - Steps

    private func command(_ command: Bubble.Command) -> DriverAction {
        .write(NordicUART.write, command.bytes, withResponse: writeWithResponse)
    }

    private mutating func resetRead() {
        fram = []
        session.cancel(.packetGap)
        trailingChunksUntil = nil
    }

    private mutating func retry(after reason: String) -> [DriverAction] {
        guard retriesUsed < configuration.maximumRetries else {
            return [.emit(.malformedValue(NordicUART.receive, reason: "\(reason); no retries left, waiting for the Bubble's next cycle"))]
        }
        retriesUsed += 1
        trailingChunksUntil = nil  // what comes now answers the new request
        return [.emit(.malformedValue(NordicUART.receive, reason: "\(reason); re-requested data (retry \(retriesUsed) of \(configuration.maximumRetries))")),
                command(.requestData(appID: configuration.appID))]
    }

    private mutating func receiveMessage(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let message: Bubble.Message
        do { message = try Bubble.Message(decoding: bytes) } catch {
            return [.emit(.malformedValue(NordicUART.receive, reason: "\(error) in \(bytes.hexString)"))]
        }
        switch message {
        case let .info(firmware, battery, hardware):
            self.firmware = firmware
            resetRead()  // a new cycle begins; a half-read FRAM from before is void
            sensorUnsupported = false
            patchInfo = nil
            return [.emit(.info(TransmitterInfo(battery: battery, firmware: firmware.description, hardware: hardware?.description))),
                    command(.requestData(appID: configuration.appID))]
        case let .serial(uid):
            var actions: [DriverAction] = [.emit(.info(TransmitterInfo(serialNumber: uid.map(hex2).joined())))]
            if let known = sensorUID, known != uid {
                libre.sensorChanged()
                actions.append(.emit(.newSensorDetected))
            }
            sensorUID = uid
            return actions
        case let .patchInfo(bytes):
            let patchInfo: LibrePatchInfo
            do { patchInfo = try Bubble.patchInfo(in: bytes, firmware: firmware) } catch {
                return [.emit(.malformedValue(NordicUART.receive, reason: "\(error) in \(bytes.hexString)"))]
            }
            self.patchInfo = patchInfo
            guard let reason = patchInfo.unsupportedReason else { return [] }
            // As for the MiaoMiao: the link stays up for a sensor swap, the event repeats each
            // cycle, and the (encrypted) data that follows is ignored.
            sensorUnsupported = true
            resetRead()
            return [.emit(.incompatible(reason: reason))]
        case let .data(payload):
            return receiveChunk(payload, plain: false, at: now)
        case let .plainData(payload):
            return receiveChunk(payload, plain: true, at: now)
        case let .undescribedData(code):
            return [.emit(.malformedValue(NordicUART.receive, reason: "Bubble sent 0x\(hex2(code)) data, whose content no source describes; Vigil reads 0x82 and 0x88"))]
        case .noSensor:
            resetRead()
            return [.emit(.sensorNotDetected)]
        }
    }

    /// One chunk of FRAM: `plain` for `0x88` (deciphered by the Bubble), else as the sensor
    /// stores it.
    private mutating func receiveChunk(_ payload: [UInt8], plain: Bool, at now: MonotonicInstant) -> [DriverAction] {
        guard !sensorUnsupported else { return [] }
        if let until = trailingChunksUntil, now <= until, fram.isEmpty {
            // xDrip reserves 8 footer bytes after the FRAM: a chunk of them arriving on its
            // own must not start a new read that then "stops half-way".
            trailingChunksUntil = now + configuration.packetGapTimeout
            return []
        }
        if fram.isEmpty {
            framIsPlain = plain
        } else if framIsPlain != plain {
            resetRead()
            return retry(after: "Bubble mixed deciphered (0x88) and stored (0x82) chunks in one FRAM")
        }
        fram += payload
        session.schedule(.packetGap, at: now + configuration.packetGapTimeout)
        guard fram.count >= LibreFRAM.byteCount else { return [] }
        let bytes = Array(fram.prefix(LibreFRAM.byteCount))
        resetRead()
        trailingChunksUntil = now + configuration.packetGapTimeout
        let decoded: LibreFRAM
        do {
            decoded = try LibreFRAM(decoding: plain ? bytes : LibreBridgeFRAM.plain(bytes, sensorUID: sensorUID, patchInfo: patchInfo))
        } catch { return retry(after: "\(error)") }
        retriesUsed = 0
        session.feedWatchdog(at: now)
        return libre.process(decoded, sensorUID: sensorUID, at: now).map { .emit($0) }
    }
}

extension BubbleDriver {
    /// The registry entry: `bubble [NAME] [no-data-timeout=11m]`.
    public static let transmitterType = TransmitterType(
        name: "bubble",
        summary: "Bubble bridge for a FreeStyle Libre 1 or European Libre 2 sensor (Nordic UART)",
        declaration: .libre1Bridge,
        driver: BubbleDriver.self
    ) { (configuration) throws(TransmitterConfigurationError) -> BubbleDriver in
        try configuration.rejectUnknownOptions(known: ["no-data-timeout"])
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(11 * 60))
        return BubbleDriver(device: configuration.device, configuration: Configuration(noDataTimeout: timeout))
    }
}
