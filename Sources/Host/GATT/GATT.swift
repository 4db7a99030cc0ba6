import Bluetooth

/// The Generic Attribute Profile as a client sees it (Core v5.4 Vol 3 Part G): services,
/// characteristics and descriptors discovered on a peer.
public enum GATT {
    /// Declaration and descriptor UUIDs (Vol 3 Part G §3; Assigned Numbers §3.7).
    public enum UUIDs {
        public static let primaryService = BluetoothUUID(0x2800)
        public static let secondaryService = BluetoothUUID(0x2801)
        public static let include = BluetoothUUID(0x2802)
        public static let characteristic = BluetoothUUID(0x2803)
        public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
        public static let serviceChanged = BluetoothUUID(0x2A05)
    }

    /// Characteristic properties (§3.3.1.1).
    public struct Properties: OptionSet, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let broadcast = Properties(rawValue: 0x01)
        public static let read = Properties(rawValue: 0x02)
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        public static let write = Properties(rawValue: 0x08)
        public static let notify = Properties(rawValue: 0x10)
        public static let indicate = Properties(rawValue: 0x20)
        public static let authenticatedSignedWrites = Properties(rawValue: 0x40)
        public static let extendedProperties = Properties(rawValue: 0x80)

        public var names: [String] {
            [(Properties.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
             (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
             (.authenticatedSignedWrites, "signed-write"), (.extendedProperties, "extended")]
                .filter { contains($0.0) }.map(\.1)
        }
        public var description: String { names.joined(separator: ",") }
    }

    public struct Service: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var startHandle: UInt16
        public var endHandle: UInt16
        public var isPrimary: Bool
        public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool = true) {
            self.uuid = uuid
            self.startHandle = startHandle
            self.endHandle = endHandle
            self.isPrimary = isPrimary
        }
    }

    public struct Characteristic: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        public var properties: Properties
        /// The last handle belonging to this characteristic (its descriptors end here).
        public var endHandle: UInt16
        public var descriptors: [Descriptor]
        public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: Properties, endHandle: UInt16, descriptors: [Descriptor] = []) {
            self.uuid = uuid
            self.declarationHandle = declarationHandle
            self.valueHandle = valueHandle
            self.properties = properties
            self.endHandle = endHandle
            self.descriptors = descriptors
        }

        /// The Client Characteristic Configuration descriptor, if discovered.
        public var cccdHandle: UInt16? {
            descriptors.first { $0.uuid == UUIDs.clientCharacteristicConfiguration }?.handle
        }
    }

    public struct Descriptor: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
        public init(uuid: BluetoothUUID, handle: UInt16) {
            self.uuid = uuid
            self.handle = handle
        }
    }

    /// A discovered database: what `vigil gatt` prints and what drivers are handed.
    public struct Database: Hashable, Sendable {
        public struct Entry: Hashable, Sendable {
            public var service: Service
            public var characteristics: [Characteristic]
            public init(service: Service, characteristics: [Characteristic]) {
                self.service = service
                self.characteristics = characteristics
            }
        }

        public var entries: [Entry]
        public init(entries: [Entry]) { self.entries = entries }

        public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) -> Characteristic? {
            for entry in entries where service == nil || entry.service.uuid == service {
                if let c = entry.characteristics.first(where: { $0.uuid == uuid }) { return c }
            }
            return nil
        }

        public func characteristic(valueHandle: UInt16) -> Characteristic? {
            for entry in entries {
                if let c = entry.characteristics.first(where: { $0.valueHandle == valueHandle }) { return c }
            }
            return nil
        }

        public var services: [Service] { entries.map(\.service) }
    }

    /// Why a GATT procedure failed.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case attributeError(ATT.ErrorCode, handle: UInt16)
        /// No response within the ATT transaction timeout; the bearer is unusable (Vol 3 Part F §3.3.3).
        case timedOut
        case disconnected
        case malformedResponse(String)
        case valueTooLong(Int)
        case bearerClosed

        public var description: String {
            switch self {
            case let .attributeError(code, handle): "ATT error \(code) on handle 0x\(String(handle, radix: 16))"
            case .timedOut: "no ATT response within 30 s"
            case .disconnected: "disconnected"
            case .malformedResponse(let why): "malformed response: \(why)"
            case .valueTooLong(let n): "value of \(n) byte(s) is too long for this write"
            case .bearerClosed: "ATT bearer closed after a timeout"
            }
        }

        /// Whether pairing or encryption would cure it.
        public var needsSecurity: Bool {
            if case .attributeError(let code, _) = self { return code.needsSecurity }
            return false
        }
    }
}
