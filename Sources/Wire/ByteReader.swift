/// A cursor over little-endian bytes, the byte order of every Bluetooth LE packet
/// (Core v5.4 Vol 4 Part E §5.2 and Vol 3 Part A §3: "little-endian unless stated").
///
/// Reads never trap: running past the end throws `WireError.truncated`, naming the field,
/// so a malformed packet becomes a log line instead of a crash.
///
/// The reads are `@inlinable`: every packet decoder in the other modules calls them per field,
/// and as opaque cross-module calls each one cost a call plus a retain/release of `bytes`
/// (measured with `vigil-bench adverts`; see the commit that added this).
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// Stored under another name so inlined reads can advance it; publicly read-only.
    @usableFromInline var _offset: Int
    @inlinable
    public var offset: Int { _offset }
    public let end: Int

    @inlinable
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self._offset = 0
        self.end = bytes.count
    }

    @inlinable
    public init<C: Collection>(_ slice: C) where C.Element == UInt8 {
        self.init(Array(slice))
    }

    /// A reader over `bytes[range]` without copying.
    @inlinable
    public init(_ bytes: [UInt8], range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        self.bytes = bytes
        self._offset = range.lowerBound
        self.end = range.upperBound
    }

    @inlinable
    public var remainingCount: Int { end - offset }
    @inlinable
    public var isAtEnd: Bool { offset >= end }

    @inlinable @inline(__always)
    mutating func need(_ count: Int, _ field: StaticString) throws(WireError) {
        guard count >= 0, end - offset >= count else {
            throw .truncated(field: "\(field)", needed: count, available: max(0, end - offset))
        }
    }

    @inlinable
    public mutating func readUInt8(_ field: StaticString = "u8") throws(WireError) -> UInt8 {
        try need(1, field)
        defer { _offset += 1 }
        return bytes[offset]
    }

    @inlinable
    public mutating func readInt8(_ field: StaticString = "i8") throws(WireError) -> Int8 {
        Int8(bitPattern: try readUInt8(field))
    }

    @inlinable
    public mutating func readUInt16(_ field: StaticString = "u16") throws(WireError) -> UInt16 {
        try need(2, field)
        defer { _offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inlinable
    public mutating func readInt16(_ field: StaticString = "i16") throws(WireError) -> Int16 {
        Int16(bitPattern: try readUInt16(field))
    }

    @inlinable
    public mutating func readUInt24(_ field: StaticString = "u24") throws(WireError) -> UInt32 {
        try need(3, field)
        defer { _offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    @inlinable
    public mutating func readUInt32(_ field: StaticString = "u32") throws(WireError) -> UInt32 {
        try need(4, field)
        defer { _offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    @inlinable
    public mutating func readInt32(_ field: StaticString = "i32") throws(WireError) -> Int32 {
        Int32(bitPattern: try readUInt32(field))
    }

    @inlinable
    public mutating func readUInt64(_ field: StaticString = "u64") throws(WireError) -> UInt64 {
        try need(8, field)  // all or nothing: never consume half a field
        let low = UInt64(try readUInt32(field))
        let high = UInt64(try readUInt32(field))
        return low | high << 32
    }

    /// A 48-bit little-endian field (a Bluetooth device address, Core v5.4 Vol 6 Part B §1.3),
    /// read straight into an integer.
    @inlinable
    public mutating func readUInt48(_ field: StaticString = "u48") throws(WireError) -> UInt64 {
        try need(6, field)
        defer { _offset += 6 }
        var v: UInt64 = 0
        for k in 0..<6 { v |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        return v
    }

    /// Big-endian reads, for the few formats that use them (btsnoop headers, RuuviTag).
    @inlinable
    public mutating func readUInt16BigEndian(_ field: StaticString = "u16be") throws(WireError) -> UInt16 {
        try need(2, field)
        defer { _offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inlinable
    public mutating func readUInt32BigEndian(_ field: StaticString = "u32be") throws(WireError) -> UInt32 {
        try need(4, field)
        defer { _offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    @inlinable
    public mutating func readUInt64BigEndian(_ field: StaticString = "u64be") throws(WireError) -> UInt64 {
        try need(8, field)
        let high = UInt64(try readUInt32BigEndian(field))
        let low = UInt64(try readUInt32BigEndian(field))
        return high << 32 | low
    }

    @inlinable
    public mutating func readBytes(_ count: Int, _ field: StaticString = "bytes") throws(WireError) -> [UInt8] {
        try need(count, field)
        defer { _offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// The range of the next `count` bytes in `bytes`, consumed without copying.
    @inlinable
    public mutating func readRange(_ count: Int, _ field: StaticString = "bytes") throws(WireError) -> Range<Int> {
        try need(count, field)
        defer { _offset += count }
        return offset..<(offset + count)
    }

    @inlinable
    public mutating func readRemaining() -> [UInt8] {
        defer { _offset = end }
        return Array(bytes[offset..<end])
    }

    @inlinable
    public mutating func skip(_ count: Int, _ field: StaticString = "skipped") throws(WireError) {
        try need(count, field)
        _offset += count
    }

    @inlinable
    public func peekUInt8() -> UInt8? { offset < end ? bytes[offset] : nil }

    /// Throws unless every byte was consumed: for fixed-size PDUs, trailing bytes are a malformation.
    @inlinable
    public func expectEnd(_ what: StaticString) throws(WireError) {
        if offset != end { throw .trailingBytes(what: "\(what)", count: end - offset) }
    }
}
