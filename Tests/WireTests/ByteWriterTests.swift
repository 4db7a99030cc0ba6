import Testing
@testable import Wire

/// ByteWriter: every width in both byte orders, and the round trip through ByteReader.
struct ByteWriterTests {
    @Test func writesEveryLittleEndianWidth() {
        var w = ByteWriter()
        w.write(UInt8(0x01))
        w.write(UInt16(0x0302))
        w.writeUInt24(0x06_0504)
        w.write(UInt32(0x0A09_0807))
        w.write(UInt64(0x1211_100F_0E0D_0C0B))
        #expect(w.bytes == [UInt8](hex: "01 0203 040506 0708090a 0b0c0d0e0f101112"))
    }

    @Test func writesSignedValuesAsTwosComplement() {
        var w = ByteWriter()
        w.write(Int8(-1))
        w.write(Int16(-2))
        w.write(Int32.min)
        #expect(w.bytes == [UInt8](hex: "ff feff 00000080"))
    }

    @Test func writesEveryBigEndianWidth() {
        var w = ByteWriter()
        w.writeBigEndian(UInt16(0x0102))
        w.writeBigEndian(UInt32(0x0304_0506))
        w.writeBigEndian(UInt64(0x0708_090A_0B0C_0D0E))
        #expect(w.bytes == [UInt8](hex: "0102 03040506 0708090a0b0c0d0e"))
    }

    @Test func uint24DropsTheTopByte() {
        var w = ByteWriter()
        w.writeUInt24(0xFF12_3456)
        #expect(w.bytes == [0x56, 0x34, 0x12])
    }

    @Test func appendsSequences() {
        var w = ByteWriter(capacity: 0)
        w.write(contentsOf: [0xAA, 0xBB])
        w.write(contentsOf: [UInt8](hex: "cc dd")[1...])
        w.write(contentsOf: EmptyCollection<UInt8>())
        #expect(w.bytes == [0xAA, 0xBB, 0xDD])
    }

    @Test(arguments: [UInt64(0), 1, 0x8000_0000_0000_0000, 0x0123_4567_89AB_CDEF, .max])
    func roundTripsThroughReader(_ value: UInt64) throws {
        var w = ByteWriter()
        w.write(UInt8(truncatingIfNeeded: value))
        w.write(UInt16(truncatingIfNeeded: value))
        w.writeUInt24(UInt32(truncatingIfNeeded: value))
        w.write(UInt32(truncatingIfNeeded: value))
        w.write(value)
        w.writeBigEndian(UInt16(truncatingIfNeeded: value))
        w.writeBigEndian(UInt32(truncatingIfNeeded: value))
        w.writeBigEndian(value)
        #expect(w.bytes.count == 1 + 2 + 3 + 4 + 8 + 2 + 4 + 8)

        var r = ByteReader(w.bytes)
        #expect(try r.readUInt8() == UInt8(truncatingIfNeeded: value))
        #expect(try r.readUInt16() == UInt16(truncatingIfNeeded: value))
        #expect(try r.readUInt24() == UInt32(truncatingIfNeeded: value) & 0xFF_FFFF)
        #expect(try r.readUInt32() == UInt32(truncatingIfNeeded: value))
        #expect(try r.readUInt64() == value)
        #expect(try r.readUInt16BigEndian() == UInt16(truncatingIfNeeded: value))
        #expect(try r.readUInt32BigEndian() == UInt32(truncatingIfNeeded: value))
        #expect(try r.readUInt64BigEndian() == value)
        try r.expectEnd("round trip")
    }
}
