import Wire

/// System ID, characteristic 0x2A23 of the Device Information Service: a 40-bit
/// manufacturer-defined identifier followed by the 24-bit Organizationally Unique Identifier,
/// 8 bytes, each field least-significant byte first (gatt-xml `system_id.xml`,
/// docs/protocols/sig-common.md §Device Information).
public struct SystemID: Hashable, Sendable, CustomStringConvertible {
    /// 40 bits.
    public var manufacturerIdentifier: UInt64
    /// 24 bits: the IEEE OUI of the company.
    public var organizationallyUniqueIdentifier: UInt32

    public init(manufacturerIdentifier: UInt64, organizationallyUniqueIdentifier: UInt32) {
        self.manufacturerIdentifier = manufacturerIdentifier & 0xFF_FFFF_FFFF
        self.organizationallyUniqueIdentifier = organizationallyUniqueIdentifier & 0xFF_FFFF
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let low = UInt64(try reader.readUInt32("system ID manufacturer identifier"))
        let high = UInt64(try reader.readUInt8("system ID manufacturer identifier"))
        let oui = try reader.readUInt24("system ID OUI")
        try reader.expectEnd("system ID")
        self.init(manufacturerIdentifier: low | high << 32, organizationallyUniqueIdentifier: oui)
    }

    public func encode() -> [UInt8] {
        var writer = ByteWriter(capacity: 8)
        writer.write(UInt32(truncatingIfNeeded: manufacturerIdentifier))
        writer.write(UInt8(truncatingIfNeeded: manufacturerIdentifier >> 32))
        writer.writeUInt24(organizationallyUniqueIdentifier)
        return writer.bytes
    }

    public var description: String {
        "OUI \(Hex.encode(encode()[5...].reversed())) id \(Hex.encode(encode()[..<5].reversed()))"
    }
}
