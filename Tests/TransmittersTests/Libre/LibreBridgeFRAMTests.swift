import Testing
import Wire
@testable import Transmitters

@Suite struct LibreBridgeFRAMTests {
    /// A Libre 1's FRAM, or one without patchInfo (older MiaoMiao firmware), is taken as plain.
    @Test func libre1AndUnknownFamilyPassThrough() throws {
        let fram = LibreFixtures.xDripLibre1
        let libre1 = try LibrePatchInfo([UInt8](hex: "df 00 00 08 1a 24"))
        #expect(try LibreBridgeFRAM.plain(fram, sensorUID: nil, patchInfo: nil) == fram)
        #expect(try LibreBridgeFRAM.plain(fram, sensorUID: nil, patchInfo: libre1) == fram)
    }

    @Test(arguments: Libre2FRAMCipherVectors.all)
    func libre2IsDeciphered(dump: Libre2FRAMCipherVectors.Dump) throws {
        let plain = try LibreBridgeFRAM.plain(dump.encrypted, sensorUID: dump.sensorUID.bytes, patchInfo: dump.patchInfo)
        #expect(plain == dump.plain)
        #expect(try LibreFRAM(decoding: plain).sensorAgeMinutes == dump.ageMinutes)
    }

    @Test func libre2NeedsAWholeUID() {
        let dump = Libre2FRAMCipherVectors.example
        #expect(throws: LibreBridgeFRAMError.noSensorUID(.libre2EU)) {
            try LibreBridgeFRAM.plain(dump.encrypted, sensorUID: nil, patchInfo: dump.patchInfo)
        }
        #expect(throws: LibreBridgeFRAMError.sensorUID(.wrongLength(7))) {
            try LibreBridgeFRAM.plain(dump.encrypted, sensorUID: Array(dump.sensorUID.bytes.prefix(7)), patchInfo: dump.patchInfo)
        }
        #expect("\(LibreBridgeFRAMError.noSensorUID(.libre2EU))" == "Libre 2 EU FRAM arrived without the sensor UID needed to decrypt it")
    }

    @Test func truncatedFRAMIsAnError() {
        let dump = Libre2FRAMCipherVectors.example
        #expect(throws: LibreBridgeFRAMError.cipher(.wrongLength(343))) {
            try LibreBridgeFRAM.plain(Array(dump.encrypted.prefix(343)), sensorUID: dump.sensorUID.bytes, patchInfo: dump.patchInfo)
        }
    }
}
