import Bluetooth

/// What GATT discovery found, as the driver sees it: services, their characteristics and each
/// characteristic's properties. No handles: the host keeps the UUID-to-handle map.
///
/// If a peer has two instances of one characteristic UUID in one service (allowed by GATT but
/// not used by any supported transmitter), the host resolves the UUID to the first one.
public struct DiscoveredServices: Hashable, Sendable {
    /// Service UUID to its characteristics, in discovery order.
    public var services: [BluetoothUUID: [DiscoveredCharacteristic]]

    public init(_ services: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]) { self.services = services }

    public func characteristics(in service: BluetoothUUID) -> [DiscoveredCharacteristic]? { services[service] }

    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID) -> DiscoveredCharacteristic? {
        services[service]?.first { $0.uuid == uuid }
    }
}

/// A characteristic found by discovery, with its declared properties.
public struct DiscoveredCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var properties: CharacteristicProperties

    public init(_ uuid: BluetoothUUID, properties: CharacteristicProperties) {
        self.uuid = uuid
        self.properties = properties
    }
}

/// The Characteristic Properties bit field of a characteristic declaration
/// (Core v5.4 Vol 3 Part G §3.3.1.1).
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)
}
