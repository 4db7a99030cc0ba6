import Testing
import Wire
@testable import Transmitters

@Suite struct IEEE11073Tests {
    // Raw values and meanings from docs/protocols/sig-common.md §SFLOAT and FLOAT (ISO/IEEE
    // 11073-20601; examples 0xC078 and 0xF07E marked [verified] there); the rest hand-computed from
    // the bit layout.
    @Test(arguments: [
        (UInt16(0xC078), IEEE11073.Value.number(mantissa: 120, exponent: -4), 0.012 as Double?),
        (0xF07E, .number(mantissa: 126, exponent: -1), 12.6),
        (0x0000, .number(mantissa: 0, exponent: 0), 0),
        (0x0001, .number(mantissa: 1, exponent: 0), 1),
        (0x0FFF, .number(mantissa: -1, exponent: 0), -1),
        (0x0803, .number(mantissa: -2045, exponent: 0), -2045),   // not a special: sign-extended
        (0x07FD, .number(mantissa: 2045, exponent: 0), 2045),     // largest positive non-special
        (0x7001, .number(mantissa: 1, exponent: 7), 10_000_000),
        (0x8001, .number(mantissa: 1, exponent: -8), 0.00000001),
        (0x1FFF, .number(mantissa: -1, exponent: 1), -10),
        (0x07FF, .notANumber, nil),
        (0x0800, .notAtThisResolution, nil),
        (0x07FE, .positiveInfinity, .infinity),
        (0x0802, .negativeInfinity, -.infinity),
        (0x0801, .reservedForFutureUse, nil),
    ])
    func decodesSFloat(raw: UInt16, value: IEEE11073.Value, double: Double?) {
        let sfloat = IEEE11073.SFloat(raw: raw)
        #expect(sfloat.value == value)
        #expect(sfloat.doubleValue == double)
    }

    @Test(arguments: [
        (UInt32(0xFF00_0064), IEEE11073.Value.number(mantissa: 100, exponent: -1), 10 as Double?),
        (0x0200_0005, .number(mantissa: 5, exponent: 2), 500),
        (0x00FF_FFFF, .number(mantissa: -1, exponent: 0), -1),
        (0xFD80_0003, .number(mantissa: -8_388_605, exponent: -3), -8388.605),
        (0x7F00_0001, .number(mantissa: 1, exponent: 127), 1e127),
        (0x007F_FFFF, .notANumber, nil),
        (0x0080_0000, .notAtThisResolution, nil),
        (0x007F_FFFE, .positiveInfinity, .infinity),
        (0x0080_0002, .negativeInfinity, -.infinity),
        (0x0080_0001, .reservedForFutureUse, nil),
    ])
    func decodesFloat(raw: UInt32, value: IEEE11073.Value, double: Double?) {
        let float = IEEE11073.Float(raw: raw)
        #expect(float.value == value)
        #expect(float.doubleValue == double)
    }

    @Test func readsLittleEndianFromTheWire() throws {
        var reader = ByteReader([UInt8](hex: "78 C0 64 00 00 FF"))
        #expect(try reader.readSFloat().raw == 0xC078)
        #expect(try reader.readFloat11073().raw == 0xFF00_0064)
        #expect(throws: WireError.truncated(field: "SFLOAT", needed: 2, available: 0)) { try reader.readSFloat() }
    }

    @Test func describes() {
        #expect(IEEE11073.SFloat(raw: 0xC078).description == "120e-4")
        #expect(IEEE11073.SFloat(raw: 0x0800).description == "NRes")
        #expect(IEEE11073.Float(raw: 0x0080_0002).description == "-INF")
    }
}
