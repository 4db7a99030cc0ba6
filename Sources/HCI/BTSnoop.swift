import Wire

/// The btsnoop capture format (BlueZ src/shared/btsnoop.c; RFC 1761-style): a 16-byte
/// big-endian file header, then records with a 24-byte big-endian header. Vigil writes
/// datalink 1002 (H4), which Wireshark, btmon and bumble-show open.
public enum BTSnoop {
    public static let magic: [UInt8] = Array("btsnoop\0".utf8)
    public static let datalinkH4: UInt32 = 1002
    public static let datalinkUnencapsulated: UInt32 = 1001
    /// btsnoop timestamps count microseconds from a nominal year 0 (BlueZ, Wireshark); this
    /// constant, the Unix epoch in those units, is what every reader uses (719,540 days: not the
    /// proleptic Gregorian 0000-01-01, which would be 12 days later).
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public enum Direction: Sendable, Equatable {
        case sent      // host to controller
        case received  // controller to host
    }

    public struct Record: Sendable, Equatable {
        public var direction: Direction
        /// The H4 packet, indicator first.
        public var packet: [UInt8]
        public var timestampMicroseconds: Int64  // since the Unix epoch
        public init(direction: Direction, packet: [UInt8], timestampMicroseconds: Int64) {
            self.direction = direction
            self.packet = packet
            self.timestampMicroseconds = timestampMicroseconds
        }
    }

    public static func fileHeader(datalink: UInt32 = datalinkH4) -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        w.write(contentsOf: magic)
        w.writeBigEndian(UInt32(1))
        w.writeBigEndian(datalink)
        return w.bytes
    }

    /// Flags: bit 0 direction (1 = received), bit 1 command/event (BlueZ `get_flags_from_opcode`).
    public static func flags(direction: Direction, packetType: UInt8) -> UInt32 {
        let isCommandOrEvent = packetType == HCI.PacketType.command.rawValue || packetType == HCI.PacketType.event.rawValue
        return (direction == .received ? 1 : 0) | (isCommandOrEvent ? 2 : 0)
    }

    /// Encodes one datalink-1002 record.
    public static func encode(_ record: Record) -> [UInt8] {
        var w = ByteWriter(capacity: 24 + record.packet.count)
        encode(record.packet, direction: record.direction, timestampMicroseconds: record.timestampMicroseconds, into: &w)
        return w.bytes
    }

    public static func encode(_ packet: [UInt8], direction: Direction, timestampMicroseconds: Int64, into w: inout ByteWriter) {
        let length = UInt32(packet.count)
        w.writeBigEndian(length)
        w.writeBigEndian(length)
        w.writeBigEndian(flags(direction: direction, packetType: packet.first ?? 0))
        w.writeBigEndian(UInt32(0))
        w.writeBigEndian(UInt64(bitPattern: timestampMicroseconds &+ unixEpochOffset))
        w.write(contentsOf: packet)
    }

    public enum ReadError: Error, Equatable, Sendable {
        case notBTSnoop
        case unsupportedVersion(UInt32)
        case unsupportedDatalink(UInt32)
        case truncatedRecord(offset: Int)
        case implausibleRecordLength(offset: Int, length: Int)
    }

    /// Reads records from a buffer (a whole file or a chunk of one). Datalink 1002 records keep
    /// their H4 indicator; 1001 records get one from the flags, so callers always see H4.
    public struct Reader: Sendable {
        public let datalink: UInt32
        private let bytes: [UInt8]
        public private(set) var offset: Int

        public init(_ bytes: [UInt8]) throws(ReadError) {
            guard bytes.count >= 16, Array(bytes[0..<8]) == BTSnoop.magic else { throw .notBTSnoop }
            var r = ByteReader(bytes, range: 8..<16)
            let version = (try? r.readUInt32BigEndian()) ?? 0
            guard version == 1 else { throw .unsupportedVersion(version) }
            datalink = (try? r.readUInt32BigEndian()) ?? 0
            guard datalink == BTSnoop.datalinkH4 || datalink == BTSnoop.datalinkUnencapsulated else {
                throw .unsupportedDatalink(datalink)
            }
            self.bytes = bytes
            offset = 16
        }

        /// The next record, nil at a clean end of file.
        public mutating func next() throws(ReadError) -> Record? {
            guard let (direction, range, timestamp) = try nextRange() else { return nil }
            var packet = Array(bytes[range])
            if datalink == BTSnoop.datalinkUnencapsulated {
                // 1001 carries no indicator: bit 1 of the flags says command/event vs data.
                let indicator: HCI.PacketType = lastFlags & 2 == 0 ? .aclData : (direction == .sent ? .command : .event)
                packet.insert(indicator.rawValue, at: 0)
            }
            return Record(direction: direction, packet: packet, timestampMicroseconds: timestamp)
        }

        private var lastFlags: UInt32 = 0

        /// The next record's direction, the range of its bytes in the buffer and its timestamp,
        /// without copying: the fast path for replay and the benchmark.
        public mutating func nextRange() throws(ReadError) -> (Direction, Range<Int>, Int64)? {
            if offset == bytes.count { return nil }
            guard bytes.count - offset >= 24 else { throw .truncatedRecord(offset: offset) }
            var r = ByteReader(bytes, range: offset..<(offset + 24))
            let original = Int((try? r.readUInt32BigEndian()) ?? 0)
            let included = Int((try? r.readUInt32BigEndian()) ?? 0)
            let flags = (try? r.readUInt32BigEndian()) ?? 0
            _ = try? r.readUInt32BigEndian()
            let ts = Int64(bitPattern: (try? r.readUInt64BigEndian()) ?? 0)
            guard included <= original || original == 0, included <= 65535 + 5 else {
                throw .implausibleRecordLength(offset: offset, length: included)
            }
            let start = offset + 24
            guard bytes.count - start >= included else { throw .truncatedRecord(offset: offset) }
            offset = start + included
            lastFlags = flags
            return (flags & 1 == 1 ? .received : .sent, start..<(start + included), ts &- BTSnoop.unixEpochOffset)
        }

        public var buffer: [UInt8] { bytes }
    }
}
