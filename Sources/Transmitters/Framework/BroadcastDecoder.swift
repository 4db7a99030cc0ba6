import Bluetooth
import Clocks
import Readings
import Wire

/// A transmitter type read **without connecting**: a thermometer that puts its readings in its
/// advertisements (BTHome v2 as bthome.io publishes it, RuuviTag data format 5 as Ruuvi does). The appliance never
/// connects to it; it hands every advertisement the decoder `recognises` to `decode(_:at:)`.
///
/// Life cycle, driven by the app (the broadcast counterpart of `TransmitterDriver`):
/// 1. `start(at:)` once the controller scans: arms the no-data watchdog, so a thermometer
///    that is never heard raises `noData` just like one that goes quiet.
/// 2. Matching (`matches(_:remembered:configuredAddress:namePrefix:)`) follows the framework's
///    `TransmitterMatcher` rules: a remembered address matches alone; otherwise an
///    advertisement the decoder `recognises` (and whose name starts with a configured prefix,
///    if any) is a candidate. The app remembers the address the first time
///    `decode` returns a `reading` for it (`containsReading`) — the broadcast equivalent of `connected`: the data
///    proved to be this type's (and, for an encrypted BTHome device, to carry our key).
/// 3. `decode(_:at:)` for every advertisement from the matched address; `handleDeadline(at:)`
///    when `now` reaches `nextDeadline`.
///
/// Decoders are value types and sans-IO: no clock reads, no I/O. The state they keep is what the
/// formats demand (the last BTHome packet id and counter for de-duplication and replay
/// rejection, the last Ruuvi sequence number) and the watchdog. Anything they cannot use becomes
/// an event: `malformedValue` (for manufacturer data, whose AD structure has no UUID, the
/// company identifier is given as a 16-bit UUID and the reason names the format), or
/// `pairingFailed` when an encrypted advertisement does not authenticate with the configured key.
public protocol BroadcastDecoder: Sendable {
    /// How this type's advertisements are recognised.
    static var recognition: BroadcastRecognition { get }
    /// The configured name its readings are stamped with.
    var device: DeviceID { get }
    /// Arms the no-data watchdog at `now`. Calling it again restarts the silence being timed.
    mutating func start(at now: MonotonicInstant)
    /// Decodes one advertisement (already matched to this device) into events: readings,
    /// `info` (battery), or a reason the data was refused. Duplicates yield no events.
    mutating func decode(_ advertisement: AdvertisementSummary, at now: MonotonicInstant) -> [TransmitterEvent]
    var nextDeadline: MonotonicInstant? { get }
    mutating func handleDeadline(at now: MonotonicInstant) -> [TransmitterEvent]
}

extension BroadcastDecoder {
    /// The recognition of this decoder's type, reachable from an existential.
    public var recognition: BroadcastRecognition { Self.recognition }

    /// True if the advertisement carries this type's service data or manufacturer data.
    public func recognises(_ advertisement: AdvertisementSummary) -> Bool { recognition.payload(in: advertisement) != nil }

    /// Whether to hand `advertisement` to this decoder, by the framework's matching rules
    /// (`TransmitterMatcher`) adapted to broadcasters: the data must be this type's; then a
    /// configured address matches alone, else a remembered one matches alone, else any
    /// advertiser whose name starts with `namePrefix` (every advertiser if there is none).
    /// Without a remembered or configured address, two thermometers of one type in range are
    /// told apart only by name or, for encrypted BTHome, by the key: configure `address` or a
    /// name when there may be a neighbour's.
    public func matches(_ advertisement: AdvertisementSummary, remembered: DeviceAddress?, configuredAddress: Address? = nil,
                        namePrefix: String? = nil) -> Bool {
        guard recognises(advertisement) else { return false }
        if let configuredAddress { return advertisement.address.address == configuredAddress }
        if let remembered { return advertisement.address == remembered }
        guard let namePrefix else { return true }
        return advertisement.name?.hasPrefix(namePrefix) == true
    }
}

extension Sequence<TransmitterEvent> {
    /// True if any event is a reading: for a broadcaster, the moment to remember its address.
    public var containsReading: Bool {
        contains { if case .reading = $0 { true } else { false } }
    }
}

/// Where a broadcast type's payload lives in an advertisement.
public enum BroadcastRecognition: Hashable, Sendable, CustomStringConvertible {
    /// Service Data with this UUID (AD type 0x16/0x20/0x21; CSS Part A §1.11).
    case serviceData(BluetoothUUID)
    /// Manufacturer Specific Data with this company identifier (AD type 0xFF; CSS Part A §1.4).
    case manufacturerData(company: UInt16)

    /// The payload (after the UUID or company identifier), or nil if the advertisement has none.
    public func payload(in advertisement: AdvertisementSummary) -> [UInt8]? {
        switch self {
        case let .serviceData(uuid): advertisement.serviceData[uuid]
        case let .manufacturerData(company): advertisement.manufacturerData[company]
        }
    }

    /// The UUID a `malformedValue` event names: the service-data UUID, or the company
    /// identifier in 16-bit UUID form (manufacturer data has no UUID of its own).
    public var eventUUID: BluetoothUUID {
        switch self {
        case let .serviceData(uuid): uuid
        case let .manufacturerData(company): BluetoothUUID(company)
        }
    }

    public var description: String {
        switch self {
        case let .serviceData(uuid): "service data \(uuid)"
        case let .manufacturerData(company): "manufacturer data of company 0x\(Hex.encode([UInt8(company >> 8), UInt8(company & 0xFF)]).uppercased())"
        }
    }
}
