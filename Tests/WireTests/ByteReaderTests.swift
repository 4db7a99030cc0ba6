import Testing
@testable import Wire

/// ByteReader: every width in both byte orders, truncation naming the field, ranges and ends.
/// Vectors are hand-built: the bytes 01 02 … 08 make every mis-ordered read visible.
struct ByteReaderTests {
    static let ascending: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]

    @Test func readsEveryLittleEndianWidth() throws {
        var r = ByteReader(Self.ascending)
        #expect(try r.readUInt8() == 0x01)
        #expect(try r.readUInt16() == 0x0302)
        #expect(try r.readUInt24() == 0x06_0504)
        #expect(r.offset == 6)
        #expect(r.remainingCount == 2)
        #expect(try r.readUInt16() == 0x0807)
        #expect(r.isAtEnd)

        var r32 = ByteReader(Self.ascending)
        #expect(try r32.readUInt32() == 0x0403_0201)
        #expect(try r32.readUInt32() == 0x0807_0605)

        var r64 = ByteReader(Self.ascending)
        #expect(try r64.readUInt64() == 0x0807_0605_0403_0201)
        #expect(r64.isAtEnd)
    }

    @Test func readsEveryBigEndianWidth() throws {
        var r = ByteReader(Self.ascending)
        #expect(try r.readUInt16BigEndian() == 0x0102)
        #expect(try r.readUInt32BigEndian() == 0x0304_0506)
        #expect(try r.readUInt16BigEndian() == 0x0708)

        var r64 = ByteReader(Self.ascending)
        #expect(try r64.readUInt64BigEndian() == 0x0102_0304_0506_0708)
        #expect(r64.isAtEnd)
    }

    @Test func signedReadsAreTwosComplement() throws {
        var r = ByteReader([0xFF, 0x80, 0xFE, 0xFF, 0x00, 0x80, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(try r.readInt8() == -1)
        #expect(try r.readInt8() == -128)
        #expect(try r.readInt16() == -2)        // FE FF
        #expect(try r.readInt16() == Int16.min)  // 00 80
        #expect(try r.readInt32() == Int32.max)  // FF FF FF 7F
        #expect(r.isAtEnd)
    }

    @Test func extremesOfEveryWidth() throws {
        var r = ByteReader([UInt8](repeating: 0xFF, count: 18))
        #expect(try r.readUInt8() == .max)
        #expect(try r.readUInt16() == .max)
        #expect(try r.readUInt24() == 0xFF_FFFF)
        #expect(try r.readUInt32() == .max)
        #expect(try r.readUInt64() == .max)
        #expect(r.isAtEnd)
    }

    /// One row per reader: what it needs, given one byte too few, and the field it must name.
    struct TruncationCase: Sendable, CustomTestStringConvertible {
        let width: Int
        let read: @Sendable (inout ByteReader) throws -> Void
        let label: String
        var testDescription: String { label }
    }

    static let truncationCases: [TruncationCase] = [
        .init(width: 1, read: { r in _ = try r.readUInt8("field") }, label: "u8"),
        .init(width: 1, read: { r in _ = try r.readInt8("field") }, label: "i8"),
        .init(width: 2, read: { r in _ = try r.readUInt16("field") }, label: "u16"),
        .init(width: 2, read: { r in _ = try r.readInt16("field") }, label: "i16"),
        .init(width: 3, read: { r in _ = try r.readUInt24("field") }, label: "u24"),
        .init(width: 4, read: { r in _ = try r.readUInt32("field") }, label: "u32"),
        .init(width: 4, read: { r in _ = try r.readInt32("field") }, label: "i32"),
        .init(width: 2, read: { r in _ = try r.readUInt16BigEndian("field") }, label: "u16be"),
        .init(width: 4, read: { r in _ = try r.readUInt32BigEndian("field") }, label: "u32be"),
        .init(width: 5, read: { r in _ = try r.readBytes(5, "field") }, label: "bytes(5)"),
        .init(width: 5, read: { r in _ = try r.readRange(5, "field") }, label: "range(5)"),
        .init(width: 5, read: { r in try r.skip(5, "field") }, label: "skip(5)"),
    ]

    @Test(arguments: truncationCases)
    func truncationNamesTheFieldAndLeavesTheCursor(_ c: TruncationCase) {
        var r = ByteReader([UInt8](repeating: 0xAA, count: c.width - 1))
        #expect(throws: WireError.truncated(field: "field", needed: c.width, available: c.width - 1)) {
            try c.read(&r)
        }
        #expect(r.offset == 0, "a failed read must not consume anything")
    }

    @Test func defaultFieldNamesSayTheWidth() {
        var r = ByteReader([])
        #expect(throws: WireError.truncated(field: "u8", needed: 1, available: 0)) { try r.readUInt8() }
        #expect(throws: WireError.truncated(field: "u16", needed: 2, available: 0)) { try r.readUInt16() }
        #expect(throws: WireError.truncated(field: "u32be", needed: 4, available: 0)) { try r.readUInt32BigEndian() }
        #expect(throws: WireError.truncated(field: "bytes", needed: 3, available: 0)) { try r.readBytes(3) }
    }

    /// The 64-bit reads are two 32-bit reads. With 6 of 8 bytes present the error should say
    /// 8 needed / 6 available and leave the cursor where it was, like every other width.
    @Test(arguments: [false, true])
    func truncated64BitReadReportsTheWholeField(bigEndian: Bool) {
        var r = ByteReader([UInt8](repeating: 0, count: 6))
        #expect(throws: WireError.truncated(field: "field", needed: 8, available: 6)) {
            if bigEndian { _ = try r.readUInt64BigEndian("field") } else { _ = try r.readUInt64("field") }
        }
        #expect(r.offset == 0)
    }

    @Test func negativeCountsThrowInsteadOfTrapping() {
        var r = ByteReader([1, 2, 3])
        #expect(throws: WireError.truncated(field: "n", needed: -1, available: 3)) { try r.readBytes(-1, "n") }
        #expect(throws: WireError.truncated(field: "n", needed: -1, available: 3)) { try r.skip(-1, "n") }
        #expect(r.offset == 0)
    }

    @Test func bytesRangesSkipAndRemaining() throws {
        var r = ByteReader(Self.ascending)
        #expect(try r.readBytes(2) == [0x01, 0x02])
        let range = try r.readRange(3)
        #expect(range == 2..<5)
        #expect(r.bytes[range] == [0x03, 0x04, 0x05])
        try r.skip(1)
        #expect(r.peekUInt8() == 0x07)
        #expect(r.offset == 6, "peek does not consume")
        #expect(r.readRemaining() == [0x07, 0x08])
        #expect(r.isAtEnd)
        #expect(r.peekUInt8() == nil)
        #expect(r.readRemaining() == [])
        #expect(try r.readBytes(0) == [])
    }

    @Test func subrangeReaderStopsAtItsEnd() throws {
        var r = ByteReader(Self.ascending, range: 2..<5)
        #expect(r.offset == 2)
        #expect(r.end == 5)
        #expect(r.remainingCount == 3)
        #expect(try r.readUInt16() == 0x0403)
        #expect(throws: WireError.truncated(field: "u16", needed: 2, available: 1)) { try r.readUInt16() }
        #expect(r.readRemaining() == [0x05], "the bytes past the range stay invisible")
    }

    @Test func collectionInitCopiesASlice() throws {
        let slice = Self.ascending[4...]
        var r = ByteReader(slice)
        #expect(r.offset == 0)
        #expect(try r.readUInt32() == 0x0807_0605)
    }

    @Test func expectEndCountsTrailingBytes() throws {
        var r = ByteReader([1, 2, 3])
        _ = try r.readUInt8()
        #expect(throws: WireError.trailingBytes(what: "pdu", count: 2)) { try r.expectEnd("pdu") }
        _ = r.readRemaining()
        try r.expectEnd("pdu")
    }
}
