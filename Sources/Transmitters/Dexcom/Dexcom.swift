import Wire

/// The Dexcom G5/G6 "G5 protocol" (docs/protocols/dexcom-g5-g6.md; reverse-engineered by CGMBLEKit,
/// xDrip and xdrip-js): message types, framing and the helpers they share.
///
/// Byte 0 of every message is its opcode. Authentication-channel messages (0x01–0x08) and
/// Disconnect (0x09) carry no CRC; every Control message ends with CRC-16/XMODEM over all
/// preceding bytes, appended little-endian (docs/protocols/dexcom-g5-g6.md §Framing and CRC).
public enum Dexcom {
    /// "Dex time": seconds since the transmitter was activated, u32le on the wire
    /// (docs/protocols/dexcom-g5-g6.md §Control messages). `0xFFFFFFFF` means "none" (xDrip
    /// BaseMessage `INVALID_TIME`).
    public typealias DexTime = UInt32
    public static let invalidDexTime: DexTime = 0xFFFF_FFFF

    /// Appends the CRC-16/XMODEM of `body`, low byte first (docs/protocols/dexcom-g5-g6.md §Framing
    /// and CRC).
    static func withCRC(_ body: [UInt8]) -> [UInt8] {
        let crc = CRC16.xmodem(body)
        return body + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// Checks a Control message's framing: the opcode, the length (one of `lengths`) and the
    /// trailing CRC. Returns a reader positioned after the opcode and ending before the CRC.
    static func controlReader(_ bytes: [UInt8], opcodes: Set<UInt8>, lengths: Set<Int>,
                              name: StaticString) throws(WireError) -> ByteReader {
        guard let opcode = bytes.first else { throw .truncated(field: "\(name) opcode", needed: 1, available: 0) }
        guard opcodes.contains(opcode) else { throw .invalidValue(field: "\(name) opcode", value: Int(opcode)) }
        let shortest = lengths.min() ?? 0, longest = lengths.max() ?? 0
        if bytes.count < shortest { throw .truncated(field: "\(name)", needed: shortest, available: bytes.count) }
        if bytes.count > longest { throw .trailingBytes(what: "\(name)", count: bytes.count - longest) }
        guard lengths.contains(bytes.count) else {
            throw .malformed("\(name) of \(bytes.count) bytes (expected \(lengths.sorted().map(String.init).joined(separator: " or ")))")
        }
        let stored = UInt16(bytes[bytes.count - 2]) | UInt16(bytes[bytes.count - 1]) << 8
        let computed = CRC16.xmodem(bytes[0..<(bytes.count - 2)])
        guard stored == computed else {
            throw .malformed("\(name) CRC mismatch: stored 0x\(hex16(stored)), computed 0x\(hex16(computed))")
        }
        var reader = ByteReader(bytes, range: 0..<(bytes.count - 2))
        _ = try reader.readUInt8("opcode")
        return reader
    }

    /// Checks a message without a CRC (an authentication-channel message; every G7 message):
    /// opcode and exact length, or at least `length` with `allowsMore`.
    static func authReader(_ bytes: [UInt8], opcode: UInt8, length: Int, name: StaticString,
                           allowsMore: Bool = false) throws(WireError) -> ByteReader {
        guard let first = bytes.first else { throw .truncated(field: "\(name) opcode", needed: 1, available: 0) }
        guard first == opcode else { throw .invalidValue(field: "\(name) opcode", value: Int(first)) }
        if bytes.count < length { throw .truncated(field: "\(name)", needed: length, available: bytes.count) }
        if !allowsMore, bytes.count > length { throw .trailingBytes(what: "\(name)", count: bytes.count - length) }
        var reader = ByteReader(bytes)
        _ = try reader.readUInt8("opcode")
        return reader
    }

    static func hex16(_ value: UInt16) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - text.count) + text
    }
}
