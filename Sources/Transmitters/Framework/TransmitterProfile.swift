import Bluetooth

/// What a transmitter type declares about itself: how to recognise it in advertisements, and
/// which GATT services and characteristics the host must discover before the driver starts.
///
/// The host discovers `servicesToDiscover` and hands the result to the driver as a
/// `DiscoveredServices`; the driver never sees an ATT handle.
public struct TransmitterProfile: Hashable, Sendable {
    /// A service UUID the transmitter puts in its advertising data, if it advertises one.
    public var advertisedService: BluetoothUUID?
    /// The start of the advertised local name (case-sensitive), if the type has a fixed one.
    public var namePrefix: String?
    /// The primary service that carries the data.
    public var service: BluetoothUUID
    /// The characteristic the readings arrive on (notified, indicated or read).
    public var receiveCharacteristic: BluetoothUUID
    /// The characteristic commands are written to, for types that have a control channel.
    public var writeCharacteristic: BluetoothUUID?
    /// Everything else the driver may use, in other services too (battery, device information).
    public var otherCharacteristics: [CharacteristicRequirement]
    public var security: SecurityRequirement
    /// When the app remembers the peer as this device's, after which it connects to no other.
    public var remembersPeer: RememberMoment = .whenDiscovered

    /// `whenDiscovered`: the peer's services made it this device's (a strap, a meter, a G6 with
    /// its ID in its name). `whenProven`: every peer of the type looks alike until the driver's
    /// own proof, so the peer is remembered at its first reading or bond. A Dexcom G7 is the
    /// case: any G7 in range answers the same until the AES challenge shows whether it holds our
    /// code's key, and remembering a sibling's sensor would bind Vigil to it for good.
    public enum RememberMoment: Hashable, Sendable {
        case whenDiscovered
        case whenProven
    }

    public init(advertisedService: BluetoothUUID? = nil, namePrefix: String? = nil, service: BluetoothUUID,
                receiveCharacteristic: BluetoothUUID, writeCharacteristic: BluetoothUUID? = nil,
                otherCharacteristics: [CharacteristicRequirement] = [], security: SecurityRequirement = .none) {
        self.advertisedService = advertisedService
        self.namePrefix = namePrefix
        self.service = service
        self.receiveCharacteristic = receiveCharacteristic
        self.writeCharacteristic = writeCharacteristic
        self.otherCharacteristics = otherCharacteristics
        self.security = security
    }

    /// The primary service first, then the others in declaration order, without duplicates.
    public var servicesToDiscover: [BluetoothUUID] {
        var result = [service]
        for requirement in otherCharacteristics where !result.contains(requirement.service) {
            result.append(requirement.service)
        }
        return result
    }

    /// Why `discovered` cannot serve this profile, or nil when everything required is there.
    public func missingRequirement(in discovered: DiscoveredServices) -> String? {
        guard discovered.characteristics(in: service) != nil else { return "service \(service) not found" }
        var required = [CharacteristicRequirement(service: service, characteristic: receiveCharacteristic)]
        if let writeCharacteristic {
            required.append(CharacteristicRequirement(service: service, characteristic: writeCharacteristic))
        }
        required += otherCharacteristics.filter { !$0.isOptional }
        for requirement in required where discovered.characteristic(requirement.characteristic, in: requirement.service) == nil {
            return "characteristic \(requirement.characteristic) not found in service \(requirement.service)"
        }
        return nil
    }
}

/// One characteristic a profile uses, and the service it lives in.
public struct CharacteristicRequirement: Hashable, Sendable {
    public var service: BluetoothUUID
    public var characteristic: BluetoothUUID
    /// Optional characteristics (battery, device information) are used when present.
    public var isOptional: Bool

    public init(service: BluetoothUUID, characteristic: BluetoothUUID, isOptional: Bool = false) {
        self.service = service
        self.characteristic = characteristic
        self.isOptional = isOptional
    }
}

/// Whether a transmitter type needs an encrypted link.
public enum SecurityRequirement: Hashable, Sendable {
    /// Works on an unencrypted link.
    case none
    /// Works unencrypted, but some characteristics may answer "insufficient authentication or
    /// encryption"; the driver then asks for pairing and retries (some heart-rate straps do this).
    case pairingWhenAsked
    /// Must be paired and encrypted before the driver starts (e.g. Dexcom's bond).
    case encryptionRequired
}
