import Testing
@testable import Wire

/// CRC-16 check values from the CRC catalogue (the CRC of ASCII "123456789") and the Dexcom
/// vectors of docs/protocols/dexcom-g5-g6.md §Framing and CRC, recomputed independently [verified].
struct CRC16Tests {
    static let check = Array("123456789".utf8)

    @Test func xmodemCheckValue() {
        #expect(CRC16.xmodem(Self.check) == 0x31C3)
    }

    @Test func mcrf4xxCheckValue() {
        #expect(CRC16.mcrf4xx(Self.check) == 0x6F91)
    }

    @Test func emptyInputIsTheInitialValue() {
        #expect(CRC16.xmodem([UInt8]()) == 0x0000)
        #expect(CRC16.mcrf4xx([UInt8]()) == 0xFFFF)
    }

    /// Dexcom G5/G6 3-byte requests: opcode, then XMODEM over the opcode, little-endian
    /// (docs/protocols/dexcom-g5-g6.md §Framing and CRC table; `4E 0A A9` also appears literally in
    /// xDrip Config.java).
    @Test(arguments: [
        "24 E6 64", "30 53 36", "4E 0A A9", "2E AC C5", "22 20 04",
        "32 11 16", "20 62 24", "4A 8E E9", "42 86 68",
    ])
    func dexcomRequests(_ hex: String) {
        let message = [UInt8](hex: hex)
        let crc = CRC16.xmodem(message[..<1])
        #expect(UInt8(truncatingIfNeeded: crc) == message[1], "CRC low byte first")
        #expect(UInt8(crc >> 8) == message[2])
    }

    /// CGMBLEKit GlucoseRxMessageTests.swift: the CRC over the first 14 bytes is stored as `c4 2a`.
    @Test func dexcomGlucosePacket() {
        let packet = [UInt8](hex: "31 00 68 0a 00 00 8a 71 57 00 cc 00 06 ff c4 2a")
        #expect(CRC16.xmodem(packet.dropLast(2)) == 0x2AC4)
        var flipped = packet
        flipped[5] ^= 0x01
        #expect(CRC16.xmodem(flipped.dropLast(2)) != 0x2AC4, "a single flipped bit must change the CRC")
    }

    @Test func acceptsAnyCollectionOfBytes() {
        let bytes = Array("xx123456789".utf8)
        #expect(CRC16.xmodem(bytes[2...]) == 0x31C3)
        #expect(CRC16.mcrf4xx(bytes[2...]) == 0x6F91)
    }
}
