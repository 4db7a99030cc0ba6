import Testing
import Wire
@testable import Transmitters

@Suite struct LibrePatchInfoTests {
    /// Family bytes per xdripswift LibreSensorType.swift (docs/protocols/miaomiao-bubble.md
    /// §MiaoMiao).
    @Test(arguments: [
        (UInt8(0xDF), LibrePatchInfo.Family.libre1), (0xA2, .libre1), (0x9D, .libre2EU), (0xC5, .libre2EU),
        (0xC6, .libre2PlusEU), (0x7F, .libre2PlusEU), (0xE5, .libreUS14Day), (0xE6, .libreUS14Day),
        (0x76, .libre2Gen2), (0x2B, .libre2Gen2), (0x2C, .libre2Gen2),
        (0x70, .librePro), (0x00, .unknown(0x00)),
    ])
    func families(byte: UInt8, family: LibrePatchInfo.Family) throws {
        let info = try LibrePatchInfo([byte, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(info.family == family)
        #expect((info.unsupportedReason == nil) == (family == .libre1 || family.usesLibre2FRAMCipher))
        #expect(family.usesLibre2FRAMCipher == (family == .libre2EU || family == .libre2PlusEU))
    }

    /// xDrip NFCReaderXTest `patchInfo_libre1` = 9d 08 30 08 1a 24: labelled "libre1" there,
    /// Libre 2 EU by xdripswift's table, which we follow (see LibrePatchInfo): a family Vigil
    /// deciphers, so not refused.
    @Test func xDripTestPatchInfoCountsAsLibre2() throws {
        let info = try LibrePatchInfo([UInt8](hex: "9d 08 30 08 1a 24"))
        #expect(info.family == .libre2EU)
        #expect(info.unsupportedReason == nil)
    }

    /// The families Vigil cannot decipher are refused with the family and bytes named.
    @Test func gen2IsRefusedWithItsFamily() throws {
        let info = try LibrePatchInfo([UInt8](hex: "76 08 30 01 73 17"))
        #expect(info.unsupportedReason == "sensor is Libre 2 Gen2 (US/CA) (patchInfo 76 08 30 01 73 17): its FRAM is encrypted in a way "
            + "Vigil does not decrypt; only Libre 1 and European Libre 2 / 2 Plus are supported")
    }

    @Test(arguments: [0, 5, 7])
    func wrongLength(count: Int) {
        #expect(throws: LibrePatchInfoError.wrongLength(count)) { try LibrePatchInfo([UInt8](repeating: 0xDF, count: count)) }
    }
}
