import Wire

/// A 48-bit Bluetooth device address (Core v5.4 Vol 6 Part B §1.3).
///
/// Stored as the integer value; on the wire it is 6 bytes least-significant first, and it is
/// written for people most-significant first, `C0:11:22:33:44:55`.
public struct Address: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// From 6 wire bytes (least-significant first).
    public init(wireBytes b: some Collection<UInt8>) {
        precondition(b.count == 6)
        var v: UInt64 = 0
        for (i, byte) in b.enumerated() { v |= UInt64(byte) << (8 * UInt64(i)) }
        self.init(value: v)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with dashes), most-significant first.
    public init?(_ text: String) {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for part in parts {
            // Two hex digits exactly: integer parsing alone would accept "+A".
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            v = v << 8 | UInt64(byte)
        }
        self.init(value: v)
    }

    public var wireBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    public var description: String {
        (0..<6).reversed().map { i in
            let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
            return Hex.encode([byte]).uppercased()
        }.joined(separator: ":")
    }

    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }

    /// A random static address has its two most significant bits set (Vol 6 Part B §1.3.2.1).
    public var isRandomStatic: Bool { value >> 46 == 0b11 }
}

extension ByteReader {
    public mutating func readAddress(_ field: StaticString = "address") throws(WireError) -> Address {
        let r = try readRange(6, field)
        return Address(wireBytes: bytes[r])
    }
}

extension ByteWriter {
    public mutating func write(_ address: Address) { write(contentsOf: address.wireBytes) }
}

/// Address type as HCI reports it for a peer (Core v5.4 Vol 4 Part E §7.7.65.2).
public enum AddressType: UInt8, Hashable, Sendable, CustomStringConvertible, Codable {
    case `public` = 0x00
    case random = 0x01
    case publicIdentity = 0x02
    case randomIdentity = 0x03

    public var description: String {
        switch self {
        case .public: "public"
        case .random: "random"
        case .publicIdentity: "public-id"
        case .randomIdentity: "random-id"
        }
    }

    /// The address type to use in a command, where resolved identity types fold back.
    public var isRandom: Bool { self == .random || self == .randomIdentity }
}

/// A peer: its address and type. The type is part of identity: the same 48 bits as public and as
/// random are different devices.
public struct DeviceAddress: Hashable, Sendable, CustomStringConvertible, Comparable {
    public var address: Address
    public var type: AddressType

    public init(_ address: Address, type: AddressType) {
        self.address = address
        self.type = type
    }

    public var description: String { "\(address) (\(type))" }

    public static func < (a: Self, b: Self) -> Bool {
        a.address == b.address ? a.type.rawValue < b.type.rawValue : a.address < b.address
    }
}
