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
    /// How many structures the data held (including unknown types, which are skipped).
    public private(set) var structureCount = 0
    /// How many UUIDs the UUID-list structures hold in all (every width).
    public private(set) var serviceUUIDCount = 0
    /// How many service-data and manufacturer-data structures there are.
    public private(set) var serviceDataCount = 0
    public private(set) var manufacturerDataCount = 0

    /// Ranges of the UUID-list structures' payloads, by width (2, 4 or 16 bytes per UUID).
    /// Built on demand from `structures`: parsing itself stores no arrays, so it never allocates.
    public var uuidLists: [(width: Int, range: Range<Int>)] {
        var out: [(width: Int, range: Range<Int>)] = []
        for case let .serviceUUIDs(width, range) in structures { out.append((width, range)) }
        return out
    }

    /// Service data: the UUID (from the structure) and the range of the data after it.
    public var serviceData: [(uuid: BluetoothUUID, range: Range<Int>)] {
        var out: [(uuid: BluetoothUUID, range: Range<Int>)] = []
        for case let .serviceData(uuid, range) in structures { out.append((uuid, range)) }
        return out
    }

    /// Manufacturer data: company identifier and the range of the data after it.
    public var manufacturerData: [(company: UInt16, range: Range<Int>)] {
        var out: [(company: UInt16, range: Range<Int>)] = []
        for case let .manufacturerData(company, range) in structures { out.append((company, range)) }
        return out
    }

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

    /// One AD structure, decoded. Variable-length parts are ranges of `bytes` (indices of the
    /// original buffer), so visiting structures allocates nothing.
    public enum Structure: Sendable, Equatable {
        case flags(UInt8)
        /// Incomplete or complete list of 16-, 32- or 128-bit service UUIDs (`width` bytes each).
        case serviceUUIDs(width: Int, range: Range<Int>)
        case localName(range: Range<Int>, isComplete: Bool)
        case txPower(Int8)
        case appearance(UInt16)
        /// Service data - 16-, 32- or 128-bit UUID; `range` is the data after the UUID.
        case serviceData(uuid: BluetoothUUID, range: Range<Int>)
        /// `range` is the data after the company identifier.
        case manufacturerData(company: UInt16, range: Range<Int>)
        /// A type Vigil does not interpret (legal: skipped by its length).
        case other(type: UInt8, range: Range<Int>)
    }

    /// Parses every structure. A zero length byte ends the significant part (§11: the rest is
    /// padding, seen in 31-byte legacy payloads).
    public init(_ bytes: ArraySlice<UInt8>) throws(ParseError) {
        self.bytes = bytes
        var walker = StructureWalker(bytes)
        while let structure = try walker.next() {
            structureCount += 1
            switch structure {
            case .flags(let value): flags = value
            case let .serviceUUIDs(width, range): serviceUUIDCount += range.count / width
            case let .localName(range, isComplete):
                // A complete name wins over a shortened one whatever their order.
                if nameRange == nil || (isComplete && !nameIsComplete) {
                    nameRange = range
                    nameIsComplete = isComplete
                }
            case .txPower(let value): txPower = value
            case .appearance(let value): appearance = value
            case .serviceData: serviceDataCount += 1
            case .manufacturerData: manufacturerDataCount += 1
            case .other: break
            }
        }
    }

    public init(_ bytes: [UInt8]) throws(ParseError) { try self.init(bytes[...]) }

    /// Every structure in order, decoded, without allocating. The data was validated when
    /// this value was made, so the sequence always reaches the end.
    public var structures: Structures { Structures(bytes: bytes) }

    public struct Structures: Sequence, Sendable {
        let bytes: ArraySlice<UInt8>
        public struct Iterator: IteratorProtocol {
            var walker: StructureWalker
            public mutating func next() -> Structure? { (try? walker.next()) ?? nil }
        }
        public func makeIterator() -> Iterator { Iterator(walker: StructureWalker(bytes)) }
    }

    /// The one decoder of the structure sequence, shared by parsing and iteration.
    struct StructureWalker {
        let bytes: ArraySlice<UInt8>
        var i: Int

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            i = bytes.startIndex
        }

        // Forced inline: this runs once per structure of every report a crowded radio delivers.
        @inline(__always)
        mutating func next() throws(ParseError) -> Structure? {
            let end = bytes.endIndex
            guard i < end else { return nil }
            let length = Int(bytes[i])
            if length == 0 {
                i = end
                return nil
            }
            guard length < end - i else { throw .structureOverrunsData(offset: i - bytes.startIndex, length: length) }
            let type = bytes[i + 1]
            let p = (i + 2)..<(i + 1 + length)
            i += 1 + length
            return try decode(type: type, payload: p)
        }

        @inline(__always)
        private func decode(type: UInt8, payload p: Range<Int>) throws(ParseError) -> Structure {
            switch type {
            case ADType.flags:
                guard p.count >= 1 else { throw .wrongLength(type: type, length: p.count) }
                return .flags(bytes[p.lowerBound])
            case ADType.incompleteUUID16, ADType.completeUUID16:
                guard p.count % 2 == 0 else { throw .wrongLength(type: type, length: p.count) }
                return .serviceUUIDs(width: 2, range: p)
            case ADType.incompleteUUID32, ADType.completeUUID32:
                guard p.count % 4 == 0 else { throw .wrongLength(type: type, length: p.count) }
                return .serviceUUIDs(width: 4, range: p)
            case ADType.incompleteUUID128, ADType.completeUUID128:
                guard p.count % 16 == 0 else { throw .wrongLength(type: type, length: p.count) }
                return .serviceUUIDs(width: 16, range: p)
            case ADType.shortenedLocalName, ADType.completeLocalName:
                return .localName(range: p, isComplete: type == ADType.completeLocalName)
            case ADType.txPowerLevel:
                guard p.count == 1 else { throw .wrongLength(type: type, length: p.count) }
                return .txPower(Int8(bitPattern: bytes[p.lowerBound]))
            case ADType.appearance:
                guard p.count == 2 else { throw .wrongLength(type: type, length: p.count) }
                return .appearance(UInt16(bytes[p.lowerBound]) | UInt16(bytes[p.lowerBound + 1]) << 8)
            case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
                let width = type == ADType.serviceData16 ? 2 : type == ADType.serviceData32 ? 4 : 16
                guard p.count >= width else { throw .wrongLength(type: type, length: p.count) }
                return .serviceData(uuid: AdvertisingData.uuid(in: bytes, at: p.lowerBound, width: width), range: (p.lowerBound + width)..<p.upperBound)
            case ADType.manufacturerSpecific:
                guard p.count >= 2 else { throw .wrongLength(type: type, length: p.count) }
                let company = UInt16(bytes[p.lowerBound]) | UInt16(bytes[p.lowerBound + 1]) << 8
                return .manufacturerData(company: company, range: (p.lowerBound + 2)..<p.upperBound)
            default:
                return .other(type: type, range: p)
            }
        }
    }

    /// A UUID of `width` (2, 4 or 16) bytes, least-significant first, at `index`, read in place
    /// (`BluetoothUUID(wireBytes:)` copies into an array first, too slow for every report).
    static func uuid(in bytes: ArraySlice<UInt8>, at index: Int, width: Int) -> BluetoothUUID {
        func little(_ start: Int, _ count: Int) -> UInt64 {
            var v: UInt64 = 0
            for k in 0..<count { v |= UInt64(bytes[start + k]) << (8 * UInt64(k)) }
            return v
        }
        switch width {
        case 2: return BluetoothUUID(UInt16(truncatingIfNeeded: little(index, 2)))
        case 4: return BluetoothUUID(uuid32: UInt32(truncatingIfNeeded: little(index, 4)))
        default: return BluetoothUUID(high: little(index + 8, 8), low: little(index, 8))
        }
    }

    /// The local name, with invalid UTF-8 repaired (a hostile name must not break a log line).
    public var name: String? { nameRange.map { String(decoding: bytes[$0], as: UTF8.self) } }

    /// Every advertised service UUID, in order.
    public var serviceUUIDs: [BluetoothUUID] {
        var out: [BluetoothUUID] = []
        out.reserveCapacity(serviceUUIDCount)
        for case let .serviceUUIDs(width, range) in structures {
            for i in stride(from: range.lowerBound, to: range.upperBound, by: width) {
                out.append(Self.uuid(in: bytes, at: i, width: width))
            }
        }
        return out
    }

    public func advertises(_ uuid: BluetoothUUID) -> Bool {
        for case let .serviceUUIDs(width, range) in structures {
            for i in stride(from: range.lowerBound, to: range.upperBound, by: width) where Self.uuid(in: bytes, at: i, width: width) == uuid {
                return true
            }
        }
        return false
    }

    public func serviceData(for uuid: BluetoothUUID) -> [UInt8]? {
        for case let .serviceData(u, range) in structures where u == uuid { return Array(bytes[range]) }
        return nil
    }

    public func manufacturerData(company: UInt16) -> [UInt8]? {
        for case let .manufacturerData(c, range) in structures where c == company { return Array(bytes[range]) }
        return nil
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
