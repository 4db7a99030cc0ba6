/// Builds little-endian packets (the Bluetooth byte order; see `ByteReader`).
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    public mutating func write(_ value: Int16) { write(UInt16(bitPattern: value)) }

    public mutating func writeUInt24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func write(_ value: Int32) { write(UInt32(bitPattern: value)) }

    public mutating func write(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    public mutating func writeBigEndian(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func writeBigEndian(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func writeBigEndian(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    public mutating func write<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        self.bytes.append(contentsOf: bytes)
    }
}
