import Testing
import Wire
@testable import Transmitters

@Suite struct LibreBlockCRCTests {
    /// xDrip LibreCrcTest.java: these 18 bytes give 19459 (0x4C03); docs/protocols/libre-fram.md
    /// [verified].
    @Test func xDripVector() {
        let bytes = [UInt8](hex: "3e 49 91 b4 8b cb 1b d9 d3 c4 c1 4a 1f 24 c4 15 de ab")
        #expect(LibreBlockCRC.compute(bytes[...]) == 19459)
        #expect(LibreBlockCRC.compute(bytes[...]) == 0x4C03)
    }

    /// The real dump's three regions (docs/protocols/libre-fram.md [verified]).
    @Test(arguments: [(LibreFRAM.Region.header, UInt16(0x9945)), (.body, 0x2446), (.footer, 0x6A4F)])
    func realDumpRegions(region: LibreFRAM.Region, crc: UInt16) {
        let slice = LibreFixtures.xDripLibre1[region.range]
        #expect(LibreBlockCRC.compute(slice) == crc)
        #expect(LibreBlockCRC.stored(slice) == crc)
    }

    @Test func storedNeedsTwoBytes() {
        #expect(LibreBlockCRC.stored([0x01][...]) == nil)
        #expect(LibreBlockCRC.stored([0x34, 0x12][...]) == 0x1234)
    }

    @Test(arguments: [(UInt16(0x0001), UInt16(0x8000)), (0x8000, 0x0001), (0x00FF, 0xFF00), (0x1234, 0x2C48), (0xFFFF, 0xFFFF)])
    func bitReversal(value: UInt16, reversed: UInt16) {
        #expect(value.bitReversed == reversed)
    }
}
