/// The two CRC-16 variants the transmitters use.
public enum CRC16 {
    /// CRC-16/XMODEM: poly 0x1021, init 0, not reflected, no final XOR.
    /// Dexcom G5/G6 control messages and backfill buffers (CGMBLEKit NSData+CRC.swift,
    /// xDrip FastCRC16.java; docs/protocols/dexcom-g5-g6.md §Framing and CRC).
    public static func xmodem<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }

    /// CRC-16/MCRF4XX: poly 0x1021 reflected (0x8408), init 0xFFFF, no final XOR.
    /// CGMS E2E-CRC (CGMS §3.x; NordicCommon CRC16.MCRF4XX) and, bit-reversed, the Libre FRAM blocks.
    public static func mcrf4xx<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x8408 : crc >> 1
            }
        }
        return crc
    }
}
