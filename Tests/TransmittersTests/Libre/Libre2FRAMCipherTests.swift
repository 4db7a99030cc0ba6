import Testing
import Wire
@testable import Transmitters

@Suite struct Libre2FRAMCipherTests {
    typealias Dump = Libre2FRAMCipherVectors.Dump

    /// The decrypted dump's fields, read off by LibreFRAM after its CRC checks.
    struct Expected: Sendable, CustomTestStringConvertible {
        let name: String
        let crcs: [UInt16]
        let trendIndex: Int
        let historyIndex: Int
        let ageMinutes: Int
        let maximumWearMinutes: Int
        var testDescription: String { name }

        var dump: Dump { name == "example" ? Libre2FRAMCipherVectors.example : Libre2FRAMCipherVectors.example2 }
    }

    static let expectations = [
        Expected(name: "example", crcs: [0xFA24, 0xBA13, 0x7F8E], trendIndex: 15, historyIndex: 15,
                 ageMinutes: 10320, maximumWearMinutes: 20719),
        Expected(name: "example2", crcs: [0x5A81, 0xDA08, 0xC671], trendIndex: 2, historyIndex: 19,
                 ageMinutes: 3170, maximumWearMinutes: 20759),
    ]

    @Test(arguments: expectations)
    func publishedDumpDecryptsToValidFRAM(expected: Expected) throws {
        let dump = expected.dump
        let plain = try Libre2FRAMCipher.decrypt(fram: dump.encrypted, sensorUID: dump.sensorUID, patchInfo: dump.patchInfo)
        for (region, crc) in zip(LibreFRAM.Region.allCases, expected.crcs) {
            #expect(LibreBlockCRC.stored(plain[region.range]) == crc, "\(region)")
            #expect(LibreBlockCRC.compute(plain[region.range]) == crc, "\(region)")
        }
        let fram = try LibreFRAM(decoding: plain)
        #expect(fram.sensorState == .ready)
        #expect(fram.trendIndex == expected.trendIndex)
        #expect(fram.historyIndex == expected.historyIndex)
        #expect(fram.sensorAgeMinutes == expected.ageMinutes)
        #expect(fram.maximumWearMinutes == expected.maximumWearMinutes)
    }

    /// The vectors are not plain already: undecrypted, the header CRC fails.
    @Test(arguments: expectations)
    func encryptedDumpFailsItsCRCs(expected: Expected) {
        #expect(throws: LibreFRAMError.self) { try LibreFRAM(decoding: expected.dump.encrypted) }
    }

    /// Another sensor's UID or patchInfo gives a different keystream, and the CRCs catch it.
    @Test func wrongKeyFailsTheCRCs() throws {
        let dump = Libre2FRAMCipherVectors.example
        let otherUID = Libre2FRAMCipherVectors.example2.sensorUID
        let otherInfo = Libre2FRAMCipherVectors.example2.patchInfo
        let wrongUID = try Libre2FRAMCipher.decrypt(fram: dump.encrypted, sensorUID: otherUID, patchInfo: dump.patchInfo)
        let wrongInfo = try Libre2FRAMCipher.decrypt(fram: dump.encrypted, sensorUID: dump.sensorUID, patchInfo: otherInfo)
        #expect(throws: LibreFRAMError.self) { try LibreFRAM(decoding: wrongUID) }
        #expect(throws: LibreFRAMError.self) { try LibreFRAM(decoding: wrongInfo) }
    }

    /// Encryption is the same XOR, so a simulated bridge can turn the published plain result
    /// back into the published ciphertext.
    @Test func encryptionRestoresThePublishedCiphertext() throws {
        let dump = Libre2FRAMCipherVectors.example2
        let plain = try Libre2FRAMCipher.decrypt(fram: dump.encrypted, sensorUID: dump.sensorUID, patchInfo: dump.patchInfo)
        #expect(try Libre2FRAMCipher.encrypt(fram: plain, sensorUID: dump.sensorUID, patchInfo: dump.patchInfo) == dump.encrypted)
    }

    @Test(arguments: [UInt8(0xDF), 0xE5, 0x70, 0x76, 0x2C])
    func refusesOtherFamilies(byte: UInt8) throws {
        let info = try LibrePatchInfo([byte, 0x08, 0x30, 0x01, 0x76, 0x25])
        let dump = Libre2FRAMCipherVectors.example2
        #expect(throws: Libre2FRAMCipherError.notLibre2(info.family)) {
            try Libre2FRAMCipher.decrypt(fram: dump.encrypted, sensorUID: dump.sensorUID, patchInfo: info)
        }
    }

    @Test(arguments: [0, 343, 345])
    func refusesWrongLength(count: Int) {
        let dump = Libre2FRAMCipherVectors.example2
        #expect(throws: Libre2FRAMCipherError.wrongLength(count)) {
            try Libre2FRAMCipher.decrypt(fram: [UInt8](repeating: 0, count: count), sensorUID: dump.sensorUID, patchInfo: dump.patchInfo)
        }
    }

    @Test func errorsNameTheProblem() throws {
        #expect(Libre2FRAMCipherError.wrongLength(12).description == "FRAM of 12 bytes, expected 344")
        #expect(Libre2FRAMCipherError.notLibre2(.libre2Gen2).description
            == "sensor is Libre 2 Gen2 (US/CA): its FRAM is not in the Libre 2 cipher Vigil decrypts")
    }
}
