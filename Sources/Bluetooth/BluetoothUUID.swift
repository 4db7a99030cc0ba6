import Wire

/// A Bluetooth UUID: 16-, 32- or 128-bit (Core v5.4 Vol 3 Part B §2.5.1).
///
/// 16- and 32-bit UUIDs are aliases within the Bluetooth Base UUID
/// `00000000-0000-1000-8000-00805F9B34FB`; equality is on the full 128-bit value, so `0x180D`
/// equals `0000180D-0000-1000-8000-00805F9B34FB`.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The 128-bit value, most-significant half first.
    public var high: UInt64
    public var low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ short: UInt16) { self.init(high: Self.baseHigh | UInt64(short) << 32, low: Self.baseLow) }
    public init(uuid32: UInt32) { self.init(high: Self.baseHigh | UInt64(uuid32) << 32, low: Self.baseLow) }

    /// From wire bytes: 2, 4 or 16 of them, least-significant first.
    public init?(wireBytes b: some Collection<UInt8>) {
        let a = Array(b)
        switch a.count {
        case 2: self.init(UInt16(a[0]) | UInt16(a[1]) << 8)
        case 4: self.init(uuid32: UInt32(a[0]) | UInt32(a[1]) << 8 | UInt32(a[2]) << 16 | UInt32(a[3]) << 24)
        case 16:
            var lo: UInt64 = 0
            var hi: UInt64 = 0
            for i in 0..<8 { lo |= UInt64(a[i]) << (8 * UInt64(i)) }
            for i in 0..<8 { hi |= UInt64(a[8 + i]) << (8 * UInt64(i)) }
            self.init(high: hi, low: lo)
        default: return nil
        }
    }

    /// Parses `180D`, `0x180D`, `0000180d` or the dashed 128-bit form.
    public init?(_ text: String) {
        var t = text.lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        let hex = t.filter { $0 != "-" }
        // Integer parsing would accept a sign ("+180d"); a UUID is hex digits only.
        guard !hex.isEmpty, hex.allSatisfy(\.isHexDigit) else { return nil }
        if !t.contains("-") && hex.count == 4, let v = UInt16(hex, radix: 16) { self.init(v); return }
        if !t.contains("-") && hex.count == 8, let v = UInt32(hex, radix: 16) { self.init(uuid32: v); return }
        guard hex.count == 32, let hi = UInt64(hex.prefix(16), radix: 16), let lo = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        self.init(high: hi, low: lo)
    }

    var isBased: Bool { low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHigh }

    /// The 16-bit alias, if this UUID has one.
    public var uuid16: UInt16? { isBased && high >> 48 == 0 ? UInt16(truncatingIfNeeded: high >> 32) : nil }
    public var uuid32: UInt32? { isBased ? UInt32(truncatingIfNeeded: high >> 32) : nil }

    /// The shortest wire form (2, 4 or 16 bytes, least-significant first). ATT only allows 2 or 16.
    public var wireBytes: [UInt8] {
        if let s = uuid16 { return [UInt8(truncatingIfNeeded: s), UInt8(s >> 8)] }
        return wireBytes128
    }

    public var wireBytes128: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * UInt64($0))) }
    }

    public var description: String {
        if let s = uuid16 {
            let h = String(s, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - h.count) + h
        }
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let h = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: digits - h.count) + h
        }
        return "\(hex(high >> 32, 8))-\(hex(high >> 16 & 0xFFFF, 4))-\(hex(high & 0xFFFF, 4))-\(hex(low >> 48, 4))-\(hex(low & 0xFFFF_FFFF_FFFF, 12))"
    }

    public static func < (a: Self, b: Self) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

extension BluetoothUUID: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: UInt16) { self.init(value) }
}

extension ByteWriter {
    public mutating func write(_ uuid: BluetoothUUID) { write(contentsOf: uuid.wireBytes) }
}
