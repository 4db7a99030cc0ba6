import Wire

/// Advertising and scan-response data: a sequence of AD structures
/// `length · AD type · data[length − 1]` (Core v5.4 Vol 3 Part C §11; types in the Core
/// Specification Supplement Part A; BlueZ src/eir.h).
///
/// Parsing validates every structure and decodes every field Vigil knows into typed values.
/// Variable-length parts (names, UUID lists, service and manufacturer data) stay as ranges of
/// the original bytes and are materialised on demand, so parsing a report allocates nothing —
/// a crowded radio sends thousands a second.
public struct AdvertisingData: Sendable, Equatable {
    public enum ADType {
        public static let flags: UInt8 = 0x01
        public static let incompleteUUID16: UInt8 = 0x02
        public static let completeUUID16: UInt8 = 0x03
        public static let incompleteUUID32: UInt8 = 0x04
        public static let completeUUID32: UInt8 = 0x05
        public static let incompleteUUID128: UInt8 = 0x06
        public static let completeUUID128: UInt8 = 0x07
        public static let shortenedLocalName: UInt8 = 0x08
        public static let completeLocalName: UInt8 = 0x09
        public static let txPowerLevel: UInt8 = 0x0A
        public static let serviceData16: UInt8 = 0x16
        public static let appearance: UInt8 = 0x19
        public static let serviceData32: UInt8 = 0x20
        public static let serviceData128: UInt8 = 0x21
        public static let manufacturerSpecific: UInt8 = 0xFF
    }

    public let bytes: ArraySlice<UInt8>

    public private(set) var flags: UInt8?
    public private(set) var txPower: Int8?
    public private(set) var appearance: UInt16?
    /// The name's bytes; `nameIsComplete` distinguishes Complete from Shortened Local Name.
    public private(set) var nameRange: Range<Int>?
    public private(set) var nameIsComplete = false
    /// Ranges of the UUID-list structures' payloads, by width (2, 4 or 16 bytes per UUID).
    public private(set) var uuidLists: [(width: Int, range: Range<Int>)] = []
    /// Service data: the UUID (from the structure) and the range of the data after it.
    public private(set) var serviceData: [(uuid: BluetoothUUID, range: Range<Int>)] = []
    /// Manufacturer data: company identifier and the range of the data after it.
    public private(set) var manufacturerData: [(company: UInt16, range: Range<Int>)] = []
    /// How many structures the data held (including unknown types, which are skipped).
    public private(set) var structureCount = 0

    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case structureOverrunsData(offset: Int, length: Int)
        case wrongLength(type: UInt8, length: Int)
        public var description: String {
            switch self {
            case let .structureOverrunsData(offset, length):
                "AD structure at offset \(offset) claims \(length) byte(s), past the end of the data"
            case let .wrongLength(type, length):
                "AD type 0x\(String(type, radix: 16)) has an impossible length \(length)"
            }
        }
    }

    /// Parses every structure. A zero length byte ends the significant part (§11: the rest is
    /// padding, seen in 31-byte legacy payloads).
    public init(_ bytes: ArraySlice<UInt8>) throws(ParseError) {
        self.bytes = bytes
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let length = Int(bytes[i])
            if length == 0 { break }
            guard i + 1 + length <= end else { throw .structureOverrunsData(offset: i - bytes.startIndex, length: length) }
            let type = bytes[i + 1]
            let payload = (i + 2)..<(i + 1 + length)
            try decode(type: type, payload: payload)
            structureCount += 1
            i += 1 + length
        }
    }

    public init(_ bytes: [UInt8]) throws(ParseError) { try self.init(bytes[...]) }

    private mutating func decode(type: UInt8, payload p: Range<Int>) throws(ParseError) {
        switch type {
        case ADType.flags:
            guard p.count >= 1 else { throw .wrongLength(type: type, length: p.count) }
            flags = bytes[p.lowerBound]
        case ADType.incompleteUUID16, ADType.completeUUID16:
            guard p.count % 2 == 0 else { throw .wrongLength(type: type, length: p.count) }
            uuidLists.append((2, p))
        case ADType.incompleteUUID32, ADType.completeUUID32:
            guard p.count % 4 == 0 else { throw .wrongLength(type: type, length: p.count) }
            uuidLists.append((4, p))
        case ADType.incompleteUUID128, ADType.completeUUID128:
            guard p.count % 16 == 0 else { throw .wrongLength(type: type, length: p.count) }
            uuidLists.append((16, p))
        case ADType.shortenedLocalName, ADType.completeLocalName:
            // A complete name wins over a shortened one whatever their order.
            if nameRange == nil || (type == ADType.completeLocalName && !nameIsComplete) {
                nameRange = p
                nameIsComplete = type == ADType.completeLocalName
            }
        case ADType.txPowerLevel:
            guard p.count == 1 else { throw .wrongLength(type: type, length: p.count) }
            txPower = Int8(bitPattern: bytes[p.lowerBound])
        case ADType.appearance:
            guard p.count == 2 else { throw .wrongLength(type: type, length: p.count) }
            appearance = UInt16(bytes[p.lowerBound]) | UInt16(bytes[p.lowerBound + 1]) << 8
        case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
            let width = type == ADType.serviceData16 ? 2 : type == ADType.serviceData32 ? 4 : 16
            guard p.count >= width, let uuid = BluetoothUUID(wireBytes: bytes[p.lowerBound..<(p.lowerBound + width)]) else {
                throw .wrongLength(type: type, length: p.count)
            }
            serviceData.append((uuid, (p.lowerBound + width)..<p.upperBound))
        case ADType.manufacturerSpecific:
            guard p.count >= 2 else { throw .wrongLength(type: type, length: p.count) }
            let company = UInt16(bytes[p.lowerBound]) | UInt16(bytes[p.lowerBound + 1]) << 8
            manufacturerData.append((company, (p.lowerBound + 2)..<p.upperBound))
        default:
            break  // Unknown types are legal: skipped by length.
        }
    }

    /// The local name, with invalid UTF-8 repaired (a hostile name must not break a log line).
    public var name: String? { nameRange.map { String(decoding: bytes[$0], as: UTF8.self) } }

    /// Every advertised service UUID, in order.
    public var serviceUUIDs: [BluetoothUUID] {
        var out: [BluetoothUUID] = []
        for (width, range) in uuidLists {
            var i = range.lowerBound
            while i + width <= range.upperBound {
                if let uuid = BluetoothUUID(wireBytes: bytes[i..<(i + width)]) { out.append(uuid) }
                i += width
            }
        }
        return out
    }

    public func advertises(_ uuid: BluetoothUUID) -> Bool {
        for (width, range) in uuidLists where uuid.wireBytes.count == width || width == 16 || (width == 4 && uuid.uuid32 != nil) {
            var i = range.lowerBound
            while i + width <= range.upperBound {
                if BluetoothUUID(wireBytes: bytes[i..<(i + width)]) == uuid { return true }
                i += width
            }
        }
        return false
    }

    public func serviceData(for uuid: BluetoothUUID) -> [UInt8]? {
        serviceData.first { $0.uuid == uuid }.map { Array(bytes[$0.range]) }
    }

    public func manufacturerData(company: UInt16) -> [UInt8]? {
        manufacturerData.first { $0.company == company }.map { Array(bytes[$0.range]) }
    }

    public static func == (a: Self, b: Self) -> Bool { a.bytes == b.bytes }
}

extension AdvertisingData {
    /// Builds advertising data (for the simulated peripherals and tests).
    public struct Builder {
        public private(set) var bytes: [UInt8] = []
        public init() {}
        public mutating func add(type: UInt8, _ payload: [UInt8]) {
            bytes.append(UInt8(payload.count + 1))
            bytes.append(type)
            bytes.append(contentsOf: payload)
        }
        public mutating func flags(_ value: UInt8) { add(type: ADType.flags, [value]) }
        public mutating func completeName(_ name: String) { add(type: ADType.completeLocalName, Array(name.utf8)) }
        public mutating func uuids16(_ uuids: [UInt16]) {
            add(type: ADType.completeUUID16, uuids.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] })
        }
        public mutating func uuids128(_ uuids: [BluetoothUUID]) { add(type: ADType.completeUUID128, uuids.flatMap(\.wireBytes128)) }
        public mutating func appearance(_ value: UInt16) { add(type: ADType.appearance, [UInt8(truncatingIfNeeded: value), UInt8(value >> 8)]) }
        public mutating func txPower(_ dBm: Int8) { add(type: ADType.txPowerLevel, [UInt8(bitPattern: dBm)]) }
        public mutating func serviceData16(_ uuid: UInt16, _ data: [UInt8]) {
            add(type: ADType.serviceData16, [UInt8(truncatingIfNeeded: uuid), UInt8(uuid >> 8)] + data)
        }
        public mutating func manufacturerData(company: UInt16, _ data: [UInt8]) {
            add(type: ADType.manufacturerSpecific, [UInt8(truncatingIfNeeded: company), UInt8(company >> 8)] + data)
        }
    }
}
