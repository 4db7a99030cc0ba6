import Testing
@testable import Wire

struct HexTests {
    @Test func encodesLowerCaseWithOptionalSeparator() {
        #expect(Hex.encode([0x00, 0x0A, 0xFF, 0x5C]) == "000aff5c")
        #expect(Hex.encode([0x00, 0x0A, 0xFF], separator: " ") == "00 0a ff")
        #expect(Hex.encode([0xC0, 0x11], separator: ":") == "c0:11")
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x7E], separator: " ") == "7e", "no separator around a single byte")
        #expect(Hex.encode([UInt8](hex: "0102")[1...]) == "02")
    }

    @Test func decodesEitherCaseAndIgnoresSeparators() {
        #expect(Hex.decode("0a1B") == [0x0A, 0x1B])
        #expect(Hex.decode("0A 1b") == [0x0A, 0x1B])
        #expect(Hex.decode("c0:11-22\n33\t44") == [0xC0, 0x11, 0x22, 0x33, 0x44])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("   ") == [])
    }

    /// A nibble may straddle a separator: only the digit count matters.
    @Test func digitsPairAcrossSeparators() {
        #expect(Hex.decode("0 a1 b") == [0x0A, 0x1B])
    }

    @Test(arguments: ["0", "abc", "0x01", "zz", "01 0g", "01,02", "é1", "+1"])
    func rejectsBadText(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }

    @Test func everyByteRoundTrips() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(all)) == all)
        #expect(Hex.decode(Hex.encode(all, separator: " ")) == all)
        #expect(Hex.decode(Hex.encode(all).uppercased()) == all)
    }

    @Test func arrayLiteralHelpers() {
        let bytes = [UInt8](hex: "DE AD be ef")
        #expect(bytes == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(bytes.hexString == "de ad be ef")
    }
}
