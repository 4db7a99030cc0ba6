import Bluetooth
import Clocks
import Readings
import Wire

/// Reads a BTHome v2 thermometer (`BTHomePacket`) without connecting: plain, or encrypted with
/// a configured 16-byte key.
///
/// Readings: the first temperature object (0x02, 0x45, 0x57 or 0x58) as `temperature`, the
/// first humidity object (0x03 or 0x2E) as `humidity` at the resolution sent (0.01 % or 1 %;
/// above 100 % is refused as malformed), battery (0x01) as `info`. Other objects
/// (pressure, buttons, ...) are decoded but not reported: Vigil has no reading kind for them.
///
/// Rules, each one a defence:
/// - **De-duplication.** Devices repeat an advertisement several times; a packet with the same
///   packet id (0x00) as the last one accepted, or (encrypted) the same counter, yields nothing.
/// - **Replay.** An encrypted packet whose counter is lower than the last one accepted is
///   refused, unless the new counter is below 100: a device that restarted counts from zero
///   (bthome-ble parser.py allows the same).
/// - **Key.** With a key configured, plain packets are refused (anyone can send those); without
///   one, encrypted packets cannot be read. Either, and a packet that does not authenticate
///   with the key, is reported as `pairingFailed` with the reason — once, and again only after
///   a packet has been accepted in between, so a neighbour's sensor cannot flood the log.
/// - **Unknown object IDs** stop parsing (sizes are unknown); the objects before are used and a
///   `malformedValue` says where it stopped.
public struct BTHomeDecoder: BroadcastDecoder {
    public struct Configuration: Hashable, Sendable {
        /// The 16-byte bind key of an encrypted device, or nil for plain BTHome.
        public var key: [UInt8]?
        /// How long without a reading before `noData`. A trigger-based ("sleepy", device
        /// information bit 2) device advertises only when something changes: give it a timeout
        /// longer than its quietest stretch, or the watchdog reports silence that is normal.
        public var noDataTimeout: Duration

        public init(key: [UInt8]? = nil, noDataTimeout: Duration = .seconds(600)) {
            self.key = key
            self.noDataTimeout = noDataTimeout
        }
    }

    public static let recognition = BroadcastRecognition.serviceData(BTHomePacket.serviceUUID)
    /// Counters below this may follow a higher one: the device restarted.
    public static let counterRestartLimit: UInt32 = 100

    public let device: DeviceID
    public let configuration: Configuration
    public private(set) var lastPacketID: UInt8?
    public private(set) var lastCounter: UInt32?
    /// A key problem was reported and no packet has been accepted since.
    public private(set) var keyProblemReported = false
    private var watchdog: NoDataWatchdog

    public init(device: DeviceID, configuration: Configuration = Configuration()) {
        self.device = device
        self.configuration = configuration
        watchdog = NoDataWatchdog(timeout: configuration.noDataTimeout)
    }

    public var nextDeadline: MonotonicInstant? { watchdog.deadline }

    public mutating func start(at now: MonotonicInstant) { watchdog.arm(at: now) }

    public mutating func decode(_ advertisement: AdvertisementSummary, at now: MonotonicInstant) -> [TransmitterEvent] {
        guard let data = Self.recognition.payload(in: advertisement) else { return [] }
        let packet: BTHomePacket
        do throws(BTHomeError) {
            packet = try BTHomePacket(decoding: data, advertiser: advertisement.address.address, key: configuration.key)
        } catch {
            switch error {
            case .noKey, .notAuthentic, .invalidKeyLength: return keyProblem("\(error)")
            case .malformed, .unsupportedVersion: return [malformed("\(error) in \(data.hexString)")]
            }
        }
        if configuration.key != nil && !packet.deviceInformation.isEncrypted {
            return keyProblem("a key is configured, so an unencrypted advertisement is not trusted")
        }
        if let counter = packet.counter, let last = lastCounter {
            if counter == last { return [] }
            if counter < last && counter >= Self.counterRestartLimit {
                return [malformed("counter went back from \(last) to \(counter): a replayed advertisement, refused")]
            }
        }
        lastCounter = packet.counter ?? lastCounter
        if let id = packet.packetID {
            if id == lastPacketID { return [] }
            lastPacketID = id
        }
        keyProblemReported = false
        return events(from: packet, at: now)
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [TransmitterEvent] {
        guard let since = watchdog.since, watchdog.expire(at: now) else { return [] }
        return [.noData(since: since, duration: now - since)]
    }

    private mutating func events(from packet: BTHomePacket, at now: MonotonicInstant) -> [TransmitterEvent] {
        var events: [TransmitterEvent] = []
        func reading(_ value: Reading.Value) { events.append(.reading(Reading(device: device, value: value, time: .monotonic(now)))) }
        if case let .number(celsius)? = packet.first(.temperature)?.value {
            reading(.temperature(Temperature(degreesCelsius: celsius)))
        }
        if case let .number(humidity)? = packet.first(.humidity)?.value {
            if let relative = RelativeHumidity(percent: humidity) { reading(.humidity(relative)) } else {
                events.append(malformed("humidity \(humidity) % is out of range"))
            }
        }
        if events.containsReading { watchdog.arm(at: now) }
        if case let .number(level)? = packet.first(.battery)?.value {
            if let percent = Percent(Int(level)) { events.append(.info(TransmitterInfo(battery: percent))) } else {
                events.append(malformed("battery \(Int(level)) % is out of range"))
            }
        }
        if let unknown = packet.stoppedAt {
            events.append(malformed("unknown object id 0x\(Hex.encode([unknown.id]).uppercased()): its size is unknown, "
                + "so the last \(unknown.unreadBytes) byte(s) were not read"))
        }
        return events
    }

    private mutating func keyProblem(_ reason: String) -> [TransmitterEvent] {
        guard !keyProblemReported else { return [] }
        keyProblemReported = true
        return [.pairingFailed(reason: "BTHome: \(reason)")]
    }

    private func malformed(_ reason: String) -> TransmitterEvent {
        .malformedValue(BTHomePacket.serviceUUID, reason: "BTHome: \(reason)")
    }
}

extension BTHomeDecoder {
    /// The registry entry: `bthome [NAME] [key=32 hex digits] [no-data-timeout=10m]`.
    public static let broadcastType = BroadcastType(
        name: "bthome",
        summary: "BTHome v2 thermometer, plain or encrypted with key=<32 hex digits> (read without connecting)",
        declaration: TransmitterDeclaration(category: .thermometer, fuzzTarget: "advertising"),
        decoder: BTHomeDecoder.self
    ) { (configuration) throws(TransmitterConfigurationError) -> BTHomeDecoder in
        try configuration.rejectUnknownOptions(known: ["key", "no-data-timeout"])
        var key: [UInt8]?
        if let text = configuration.options["key"] {
            guard text.count == 32, let bytes = Hex.decode(text), bytes.count == 16 else {
                // The key is a secret: say what is wrong with it without echoing it.
                throw .invalidOption("key", value: "(\(text.count) characters)", expected: "32 hex digits (the device's 16-byte bind key)")
            }
            key = bytes
        }
        let timeout = try configuration.duration("no-data-timeout", default: .seconds(600))
        return BTHomeDecoder(device: configuration.device, configuration: Configuration(key: key, noDataTimeout: timeout))
    }
}
