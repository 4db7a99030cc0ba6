import Testing
@testable import Transmitters

@Suite struct XBridgeTransmitterIDTests {
    // ABCDE → 0x00A5B1AE: docs/protocols/xbridge.md §Transmitter ID (LimiTTer-derived source,
    // [verified]). The others are hand-computed from c0<<20 | c1<<15 | c2<<10 | c3<<5 | c4 over the
    // 32-symbol alphabet.
    @Test(arguments: [
        ("ABCDE", UInt32(0x00A5_B1AE)),
        ("abcde", 0x00A5_B1AE),          // case-insensitive
        ("6ABCD", 0x0065_2D8D),
        ("00000", 0x0000_0000),
        ("YYYYY", 0x01FF_FFFF),          // Y is index 31: every bit of all five symbols
        ("00001", 0x0000_0001),
        ("10000", 0x0010_0000),
        ("0000W", 0x0000_001D),          // W is index 29: V is skipped
    ])
    func encodes(text: String, raw: UInt32) throws {
        let id = try XBridgeTransmitterID(text)
        #expect(id.rawValue == raw)
        #expect(id.description == text.uppercased())
        #expect(XBridgeTransmitterID(rawValue: raw) == id)
    }

    @Test(arguments: ["ABCD", "ABCDEF", "", "ABCDI", "ABCDO", "ABCDV", "ABCDZ", "ABC-E", "ABCDÉ"])
    func rejects(text: String) {
        #expect(throws: XBridgeError.self) { try XBridgeTransmitterID(text) }
    }

    @Test func rejectsRawValuesWiderThan25Bits() {
        #expect(XBridgeTransmitterID(rawValue: 0x0200_0000) == nil)
        #expect(XBridgeTransmitterID(rawValue: 0xFFFF_FFFF) == nil)
        #expect(XBridgeTransmitterID(rawValue: 0x01FF_FFFF)?.description == "YYYYY")
    }
}
