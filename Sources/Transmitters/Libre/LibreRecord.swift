/// One 6-byte glucose record of the Libre 1 trend or history ring (docs/protocols/libre-fram.md
/// §Record bit fields: LibreTransmitter Measurement.swift `readBits`, xdripswift
/// LibreMeasurement.swift). Bits are numbered LSB-first across the six bytes: bit n is bit n % 8 of
/// byte n / 8.
///
/// Raw glucose is 13 bits in xDrip and xdripswift and 14 bits in LibreTransmitter. Both are
/// exposed. `rawGlucose` is the 13-bit reading, because the raw/8.5 conversion Vigil uses comes
/// from the 13-bit projects; a record whose bit 13 is set (where the two readings disagree) is
/// not used for glucose at all (`problem`), since we cannot tell which reading is right.
public struct LibreRecord: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 6

    public let bytes: [UInt8]

    /// `bytes` must hold exactly six bytes; the FRAM decoder guarantees it.
    init(_ bytes: ArraySlice<UInt8>) {
        precondition(bytes.count == Self.byteCount)
        self.bytes = Array(bytes)
    }

    /// Bits `start ..< start + count` as an unsigned number, LSB-first.
    func bits(_ start: Int, _ count: Int) -> Int {
        var value = 0
        for i in 0..<count {
            let bit = start + i
            if bytes[bit / 8] >> (bit % 8) & 1 == 1 { value |= 1 << i }
        }
        return value
    }

    /// Bits 0–12 (xDrip, xdripswift).
    public var rawGlucose13: Int { bits(0, 13) }
    /// Bits 0–13 (LibreTransmitter).
    public var rawGlucose14: Int { bits(0, 14) }
    /// The raw glucose Vigil converts: the 13-bit reading (see the type's comment).
    public var rawGlucose: Int { rawGlucose13 }
    /// Bits 14–25 (LibreTransmitter `extractErrorBitField`); zero on a good record.
    public var errorBits: Int { bits(14, 12) }
    /// Bits 26–37 × 4 (LibreTransmitter; xdripswift's 14-bit read differs only in the 2 LSBs).
    public var rawTemperature: Int { bits(26, 12) << 2 }
    /// Bits 38–46 × 4, negative when bit 47 is set.
    public var temperatureAdjustment: Int {
        let magnitude = bits(38, 9) << 2
        return bits(47, 1) == 1 ? -magnitude : magnitude
    }

    /// Why this record cannot give a glucose value, or nil when it can.
    public var problem: String? {
        if rawGlucose14 != rawGlucose13 { return "raw glucose bit 13 set (13-bit \(rawGlucose13) vs 14-bit \(rawGlucose14))" }
        if rawGlucose == 0 { return "raw glucose 0 (slot never written)" }
        if errorBits != 0 { return "error bits 0x\(String(errorBits, radix: 16))" }
        return nil
    }

    public var description: String { "raw \(rawGlucose) temp \(rawTemperature)" + (problem.map { " (\($0))" } ?? "") }
}
