import Wire

/// The CRC that guards each of the three regions of a Libre 1 FRAM (header, body, footer).
///
/// docs/protocols/libre-fram.md §Block CRC (xDrip LibreUtils.java `computeCRC16`/`CheckCRC16`,
/// xdripswift CRC.swift, LibreTransmitter CRC.swift): CRC-16/MCRF4XX over every byte of the region
/// after its first two, then the 16 result bits reversed; stored little-endian in the region's
/// first two bytes. The bit reversal is the sensor's own quirk, not a different polynomial.
public enum LibreBlockCRC {
    /// The CRC the sensor would store for `region` (whose first two bytes are the CRC itself
    /// and are skipped). A region shorter than two bytes has nothing to check; its CRC is that
    /// of the empty message.
    public static func compute(_ region: ArraySlice<UInt8>) -> UInt16 {
        let payload = region.dropFirst(2)
        return CRC16.mcrf4xx(payload).bitReversed
    }

    /// The CRC stored in the region's first two bytes (little-endian), or nil if it has fewer.
    public static func stored(_ region: ArraySlice<UInt8>) -> UInt16? {
        guard region.count >= 2 else { return nil }
        let start = region.startIndex
        return UInt16(region[start]) | UInt16(region[start + 1]) << 8
    }
}

extension UInt16 {
    /// Bit 0 becomes bit 15 and so on.
    var bitReversed: UInt16 {
        var value = self
        var result: UInt16 = 0
        for _ in 0..<16 {
            result = result << 1 | (value & 1)
            value >>= 1
        }
        return result
    }
}
