import Testing
import Clocks
import Wire
@testable import HCI

/// btsnoop files (BlueZ src/shared/btsnoop.c; docs/protocols/btsnoop-h4.md §btsnoop): a 16-byte
/// big-endian header, then records with a 24-byte big-endian header. Vectors are built from that
/// layout.
struct BTSnoopTests {
    static let reset = [UInt8](hex: "01 03 0C 00")
    static let resetComplete = [UInt8](hex: "04 0E 04 01 03 0C 00")
    static let aclOut = [UInt8](hex: "02 40 00 07 00 03 00 04 00 0A 03 00")
    static let aclIn = [UInt8](hex: "02 40 20 07 00 03 00 04 00 0B 01 02")
    /// 2023-11-14T22:13:20Z in Unix microseconds.
    static let t0: Int64 = 1_700_000_000_000_000

    static func recordHeader(length: UInt32, included: UInt32? = nil, flags: UInt32, timestamp: UInt64) -> [UInt8] {
        var w = ByteWriter()
        w.writeBigEndian(length)
        w.writeBigEndian(included ?? length)
        w.writeBigEndian(flags)
        w.writeBigEndian(UInt32(0))
        w.writeBigEndian(timestamp)
        return w.bytes
    }

    @Test func fileHeader() {
        #expect(BTSnoop.fileHeader() == [UInt8](hex: "62 74 73 6E 6F 6F 70 00  00 00 00 01  00 00 03 EA"))
        #expect(BTSnoop.fileHeader(datalink: BTSnoop.datalinkUnencapsulated) == [UInt8](hex: "62 74 73 6E 6F 6F 70 00  00 00 00 01  00 00 03 E9"))
        #expect(BTSnoop.magic == Array("btsnoop\0".utf8))
    }

    /// Bit 0 direction (1 = received), bit 1 command/event: command 2, event 3, ACL 0/1
    /// (BlueZ `get_flags_from_opcode`).
    @Test(arguments: [
        (BTSnoop.Direction.sent, UInt8(0x01), UInt32(2)),
        (.received, 0x04, 3),
        (.sent, 0x02, 0),
        (.received, 0x02, 1),
        (.received, 0x05, 1),
        (.sent, 0x03, 0),
        (.received, 0x01, 3),
        (.sent, 0x04, 2),
    ])
    func flags(_ direction: BTSnoop.Direction, _ packetType: UInt8, _ flags: UInt32) {
        #expect(BTSnoop.flags(direction: direction, packetType: packetType) == flags)
    }

    @Test func encodesARecord() {
        let bytes = BTSnoop.encode(BTSnoop.Record(direction: .sent, packet: Self.reset, timestampMicroseconds: Self.t0))
        #expect(bytes == [UInt8](hex: """
            00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00  00 E2 E7 D7 27 4D C0 00
            01 03 0C 00
            """))
    }

    /// BlueZ writes ts = (unix_s − 946684800)·10⁶ + µs + 0x00E03AB44A676000, so the turn of
    /// 2000 is that constant exactly, and the Unix offset is 0x00DCDDB30F2F8000.
    @Test func timestampEpoch() throws {
        #expect(BTSnoop.unixEpochOffset == 0x00DC_DDB3_0F2F_8000)
        #expect(BTSnoop.unixEpochOffset == 0x00E0_3AB4_4A67_6000 - 946_684_800 * 1_000_000)
        let y2k = WallClockTime(microsecondsSinceEpoch: 946_684_800_000_000)
        #expect(y2k.iso8601 == "2000-01-01T00:00:00.000Z")
        let bytes = BTSnoop.encode(BTSnoop.Record(direction: .received, packet: Self.resetComplete, timestampMicroseconds: y2k.microsecondsSinceEpoch))
        #expect(Array(bytes[16..<24]) == [UInt8](hex: "00 E0 3A B4 4A 67 60 00"))
        // The format's "0 AD" epoch is 719 540 days before 1970, 12 more than the proleptic
        // Gregorian 0000-01-01 of WallClockTime: the constant is BlueZ's, not a calendar's.
        #expect(BTSnoop.unixEpochOffset == 719_540 * 86_400_000_000)
        #expect(WallClockTime.days(year: 0, month: 1, day: 1) == -719_528)
    }

    @Test func writesAndReadsAFile() throws {
        let records = [
            BTSnoop.Record(direction: .sent, packet: Self.reset, timestampMicroseconds: Self.t0),
            BTSnoop.Record(direction: .received, packet: Self.resetComplete, timestampMicroseconds: Self.t0 + 1_234),
            BTSnoop.Record(direction: .sent, packet: Self.aclOut, timestampMicroseconds: Self.t0 + 2_000_000),
            BTSnoop.Record(direction: .received, packet: Self.aclIn, timestampMicroseconds: Self.t0 + 2_000_001),
            BTSnoop.Record(direction: .received, packet: [], timestampMicroseconds: -1),  // before 1970, empty
        ]
        var file = BTSnoop.fileHeader()
        for r in records { file += BTSnoop.encode(r) }
        #expect(file.count == 16 + 5 * 24 + 4 + 7 + 12 + 12)

        var reader = try BTSnoop.Reader(file)
        #expect(reader.datalink == BTSnoop.datalinkH4)
        #expect(reader.offset == 16)
        var read: [BTSnoop.Record] = []
        while let r = try reader.next() { read.append(r) }
        #expect(read == records)
        #expect(reader.offset == file.count)
        #expect(try reader.next() == nil, "the end stays the end")
        #expect(reader.buffer == file)
    }

    @Test func encodeIntoAppendsToAWriter() {
        var w = ByteWriter()
        w.write(contentsOf: BTSnoop.fileHeader())
        BTSnoop.encode(Self.reset, direction: .sent, timestampMicroseconds: Self.t0, into: &w)
        #expect(w.bytes == BTSnoop.fileHeader() + BTSnoop.encode(.init(direction: .sent, packet: Self.reset, timestampMicroseconds: Self.t0)))
    }

    @Test func nextRangePointsIntoTheBuffer() throws {
        let file = BTSnoop.fileHeader() + BTSnoop.encode(.init(direction: .received, packet: Self.resetComplete, timestampMicroseconds: Self.t0))
        var reader = try BTSnoop.Reader(file)
        let (direction, range, timestamp) = try #require(try reader.nextRange())
        #expect(direction == .received)
        #expect(range == 40..<47)
        #expect(Array(reader.buffer[range]) == Self.resetComplete)
        #expect(timestamp == Self.t0)
        #expect(try reader.nextRange() == nil)
    }

    /// Datalink 1001 records carry no indicator; the reader rebuilds it from the flags.
    @Test func unencapsulatedRecordsGetAnIndicator() throws {
        let ts = UInt64(bitPattern: Self.t0 + BTSnoop.unixEpochOffset)
        var file = BTSnoop.fileHeader(datalink: 1001)
        file += Self.recordHeader(length: 3, flags: 2, timestamp: ts) + Self.reset.dropFirst()
        file += Self.recordHeader(length: 6, flags: 3, timestamp: ts + 1) + Self.resetComplete.dropFirst()
        file += Self.recordHeader(length: 11, flags: 0, timestamp: ts + 2) + Self.aclOut.dropFirst()
        file += Self.recordHeader(length: 11, flags: 1, timestamp: ts + 3) + Self.aclIn.dropFirst()
        var reader = try BTSnoop.Reader(file)
        #expect(reader.datalink == BTSnoop.datalinkUnencapsulated)
        var read: [BTSnoop.Record] = []
        while let r = try reader.next() { read.append(r) }
        #expect(read == [
            .init(direction: .sent, packet: Self.reset, timestampMicroseconds: Self.t0),
            .init(direction: .received, packet: Self.resetComplete, timestampMicroseconds: Self.t0 + 1),
            .init(direction: .sent, packet: Self.aclOut, timestampMicroseconds: Self.t0 + 2),
            .init(direction: .received, packet: Self.aclIn, timestampMicroseconds: Self.t0 + 3),
        ])
    }

    /// A zero original length (some writers leave it unset) does not make a record implausible.
    @Test func zeroOriginalLengthIsAccepted() throws {
        let file = BTSnoop.fileHeader() + Self.recordHeader(length: 0, included: 4, flags: 2, timestamp: 0) + Self.reset
        var reader = try BTSnoop.Reader(file)
        #expect(try reader.next()?.packet == Self.reset)
    }

    @Test(arguments: [
        ("", BTSnoop.ReadError.notBTSnoop),
        ("62 74 73 6E 6F 6F 70 00 00 00 00 01 00 00 03", .notBTSnoop),
        ("62 74 73 6E 6F 6F 70 01 00 00 00 01 00 00 03 EA", .notBTSnoop),
        ("00 00 00 00 00 00 00 00 00 00 00 01 00 00 03 EA", .notBTSnoop),
        ("62 74 73 6E 6F 6F 70 00 00 00 00 02 00 00 03 EA", .unsupportedVersion(2)),
        ("62 74 73 6E 6F 6F 70 00 01 00 00 00 00 00 03 EA", .unsupportedVersion(0x0100_0000)),
        ("62 74 73 6E 6F 6F 70 00 00 00 00 01 00 00 07 D1", .unsupportedDatalink(2001)),
        ("62 74 73 6E 6F 6F 70 00 00 00 00 01 00 00 03 EB", .unsupportedDatalink(1003)),
        ("62 74 73 6E 6F 6F 70 00 00 00 00 01 00 00 EA 03", .unsupportedDatalink(0xEA03)),
    ])
    func rejectsBadFileHeaders(_ hex: String, _ error: BTSnoop.ReadError) {
        #expect(throws: error) { try BTSnoop.Reader([UInt8](hex: hex)) }
    }

    @Test func truncatedRecordHeader() throws {
        let file = BTSnoop.fileHeader() + BTSnoop.encode(.init(direction: .sent, packet: Self.reset, timestampMicroseconds: 0))
        for cut in 1..<24 {
            var reader = try BTSnoop.Reader(Array(file.prefix(16 + cut)))
            #expect(throws: BTSnoop.ReadError.truncatedRecord(offset: 16)) { try reader.next() }
        }
    }

    @Test func truncatedRecordData() throws {
        let file = BTSnoop.fileHeader() + BTSnoop.encode(.init(direction: .sent, packet: Self.reset, timestampMicroseconds: 0))
            + BTSnoop.encode(.init(direction: .received, packet: Self.resetComplete, timestampMicroseconds: 1))
        var reader = try BTSnoop.Reader(Array(file.dropLast(3)))
        #expect(try reader.next()?.packet == Self.reset, "records before the damage are still read")
        #expect(throws: BTSnoop.ReadError.truncatedRecord(offset: 16 + 24 + 4)) { try reader.next() }
        #expect(reader.offset == 16 + 24 + 4, "the failed record is not consumed")
    }

    @Test(arguments: [
        (UInt32(4), UInt32(5), 5),              // included longer than the original
        (70_000, 70_000, 70_000),               // longer than any H4 packet
        (0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFF),
    ])
    func implausibleLengths(_ original: UInt32, _ included: UInt32, _ reported: Int) throws {
        let file = BTSnoop.fileHeader() + Self.recordHeader(length: original, included: included, flags: 2, timestamp: 0) + Self.reset
        var reader = try BTSnoop.Reader(file)
        #expect(throws: BTSnoop.ReadError.implausibleRecordLength(offset: 16, length: reported)) { try reader.next() }
    }

    /// Garbage after a valid header never traps: records read until a clean end or a typed error.
    @Test(arguments: 0..<16)
    func randomGarbageNeverTraps(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let garbage = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let file = BTSnoop.fileHeader(datalink: seed % 2 == 0 ? 1002 : 1001) + garbage
        var reader = try BTSnoop.Reader(file)
        do {
            while try reader.next() != nil {}
            #expect(reader.offset == file.count, "a clean end consumed every byte")
        } catch {
            #expect(reader.offset < file.count, "an error leaves the damaged record unread")
        }
    }
}
