import Bluetooth
import Clocks

/// Who may touch an attribute value (Core v5.4 Vol 3 Part F §3.2.5 attribute permissions).
public enum SimulatedAccess: Sendable, Equatable {
    case open
    /// Only over an encrypted link: otherwise Insufficient Authentication (no key for this
    /// central) or Insufficient Encryption (a key exists, the link is just not encrypted yet),
    /// as Vol 3 Part C §10.3.1 distinguishes them.
    case encryptionRequired
}

/// A characteristic of a simulated GATT server (Core v5.4 Vol 3 Part G §3.3).
public struct SimulatedCharacteristic: Sendable {
    /// Characteristic Properties bits (Vol 3 Part G §3.3.1.1).
    public struct Properties: OptionSet, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let broadcast = Properties(rawValue: 0x01)
        public static let read = Properties(rawValue: 0x02)
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        public static let write = Properties(rawValue: 0x08)
        public static let notify = Properties(rawValue: 0x10)
        public static let indicate = Properties(rawValue: 0x20)
    }

    /// Where the value comes from: a stored value (updated by writes and `setValue`) or a
    /// function of virtual time, so a value can change over time without anyone driving it.
    public enum Value: Sendable {
        case stored([UInt8])
        case computed(@Sendable (MonotonicInstant) -> [UInt8])
    }

    public var uuid: BluetoothUUID
    public var properties: Properties
    public var value: Value
    /// Applies to reads and writes of the value.
    public var access: SimulatedAccess
    /// Applies to writes of the automatic CCCD (e.g. an HR monitor that only notifies bonded centrals).
    public var cccdAccess: SimulatedAccess
    /// When set, subscribers get the current value every interval of virtual time.
    public var updateInterval: Duration?
    public var descriptors: [SimulatedDescriptor]
    /// Judges a write: nil accepts it, a byte is the ATT error code to answer (e.g. 0x80, an
    /// application error such as HRS "Control Point Not Supported").
    public var writeHandler: (@Sendable ([UInt8]) -> UInt8?)?

    public init(
        _ uuid: BluetoothUUID, properties: Properties, value: Value = .stored([]),
        access: SimulatedAccess = .open, cccdAccess: SimulatedAccess = .open,
        updateInterval: Duration? = nil, descriptors: [SimulatedDescriptor] = [],
        writeHandler: (@Sendable ([UInt8]) -> UInt8?)? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
        self.access = access
        self.cccdAccess = cccdAccess
        self.updateInterval = updateInterval
        self.descriptors = descriptors
        self.writeHandler = writeHandler
    }

    /// Whether the server adds a Client Characteristic Configuration descriptor (Vol 3 Part G §3.3.3.3).
    var needsCCCD: Bool { !properties.isDisjoint(with: [.notify, .indicate]) }
}

/// A descriptor other than the automatic CCCD (e.g. 0x2901 User Description).
public struct SimulatedDescriptor: Sendable {
    public var uuid: BluetoothUUID
    public var value: [UInt8]
    public var isWritable: Bool
    public init(_ uuid: BluetoothUUID, value: [UInt8], isWritable: Bool = false) {
        self.uuid = uuid
        self.value = value
        self.isWritable = isWritable
    }
}

/// A service (Vol 3 Part G §3.1); `includes` name other services of the same database (§3.2).
public struct SimulatedService: Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    public var includes: [BluetoothUUID]
    public var characteristics: [SimulatedCharacteristic]
    public init(_ uuid: BluetoothUUID, isPrimary: Bool = true, includes: [BluetoothUUID] = [], characteristics: [SimulatedCharacteristic]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includes = includes
        self.characteristics = characteristics
    }
}

/// The flat attribute table a GATT server exposes (Vol 3 Part F §3.2, Part G §3), with handles
/// assigned from 0x0001 in declaration order.
struct GATTDatabase: Sendable {
    enum Declaration: UInt16 {
        case primaryService = 0x2800
        case secondaryService = 0x2801
        case include = 0x2802
        case characteristic = 0x2803
        case clientCharacteristicConfiguration = 0x2902
    }

    enum Role: Sendable {
        case serviceDeclaration(endHandle: UInt16)
        case includeDeclaration
        case characteristicDeclaration
        case characteristicValue(characteristic: Int)
        case cccd(characteristic: Int)
        case descriptor(isWritable: Bool)
    }

    struct Attribute: Sendable {
        var handle: UInt16
        var type: BluetoothUUID
        var role: Role
        /// The value of declarations and plain descriptors (values and CCCDs live elsewhere).
        var fixedValue: [UInt8]
    }

    /// A characteristic with its handles and mutable state.
    struct Entry: Sendable {
        var definition: SimulatedCharacteristic
        var valueHandle: UInt16
        var cccdHandle: UInt16?
        var storedValue: [UInt8]
    }

    private(set) var attributes: [Attribute] = []
    var characteristics: [Entry] = []

    init(services: [SimulatedService]) {
        // Pass 1: each service's handle range, so include declarations can name services
        // declared later in the table.
        var ranges: [(uuid: BluetoothUUID, start: UInt16, end: UInt16)] = []
        var next: UInt16 = 1
        for service in services {
            var count = 1 + service.includes.count
            for c in service.characteristics { count += 2 + (c.needsCCCD ? 1 : 0) + c.descriptors.count }
            ranges.append((service.uuid, next, next + UInt16(count) - 1))
            next += UInt16(count)
        }
        // Pass 2: the attributes.
        for (index, service) in services.enumerated() {
            let range = ranges[index]
            var handle = range.start
            func add(_ type: BluetoothUUID, _ role: Role, _ value: [UInt8] = []) {
                attributes.append(Attribute(handle: handle, type: type, role: role, fixedValue: value))
                handle += 1
            }
            add(BluetoothUUID((service.isPrimary ? Declaration.primaryService : .secondaryService).rawValue),
                .serviceDeclaration(endHandle: range.end), service.uuid.wireBytes)
            for included in service.includes {
                // Include value: start · end · UUID only when 16-bit (Vol 3 Part G §3.2).
                guard let target = ranges.first(where: { $0.uuid == included }) else { continue }
                var value = [UInt8(truncatingIfNeeded: target.start), UInt8(target.start >> 8),
                             UInt8(truncatingIfNeeded: target.end), UInt8(target.end >> 8)]
                if included.uuid16 != nil { value += included.wireBytes }
                add(BluetoothUUID(Declaration.include.rawValue), .includeDeclaration, value)
            }
            for c in service.characteristics {
                let valueHandle = handle + 1
                // Declaration value: properties · value handle · UUID (Vol 3 Part G §3.3.1).
                add(BluetoothUUID(Declaration.characteristic.rawValue), .characteristicDeclaration,
                    [c.properties.rawValue, UInt8(truncatingIfNeeded: valueHandle), UInt8(valueHandle >> 8)] + c.uuid.wireBytes)
                let characteristicIndex = characteristics.count
                add(c.uuid, .characteristicValue(characteristic: characteristicIndex))
                var cccdHandle: UInt16?
                if c.needsCCCD {
                    cccdHandle = handle
                    add(BluetoothUUID(Declaration.clientCharacteristicConfiguration.rawValue), .cccd(characteristic: characteristicIndex))
                }
                for d in c.descriptors { add(d.uuid, .descriptor(isWritable: d.isWritable), d.value) }
                let stored: [UInt8] = if case .stored(let v) = c.value { v } else { [] }
                characteristics.append(Entry(definition: c, valueHandle: valueHandle, cccdHandle: cccdHandle, storedValue: stored))
            }
        }
    }

    var lastHandle: UInt16 { attributes.last?.handle ?? 0 }

    /// The attribute with this handle (handles are dense from 1, so this is an index).
    func attribute(_ handle: UInt16) -> Attribute? {
        let index = Int(handle) - 1
        return index >= 0 && index < attributes.count ? attributes[index] : nil
    }

    /// Attributes with handles in start...end, in handle order.
    func attributes(in start: UInt16, _ end: UInt16) -> ArraySlice<Attribute> {
        let lower = max(Int(start), 1) - 1
        let upper = min(Int(end), attributes.count)
        return lower < upper ? attributes[lower..<upper] : []
    }

    /// The current value of a characteristic at `now`.
    func currentValue(of index: Int, at now: MonotonicInstant) -> [UInt8] {
        switch characteristics[index].definition.value {
        case .stored: characteristics[index].storedValue
        case .computed(let f): f(now)
        }
    }

    func characteristicIndex(uuid: BluetoothUUID) -> Int? {
        characteristics.firstIndex { $0.definition.uuid == uuid }
    }
}
