import Testing
import Wire
@testable import Transmitters

@Suite struct LibreSensorUIDTests {
    @Test func wordsAreLittleEndian() throws {
        let uid = try LibreSensorUID([UInt8](hex: "9d 81 c2 00 00 a4 07 e0"))
        #expect(uid.word(at: 0) == 0x819D)
        #expect(uid.word(at: 2) == 0x00C2)
        #expect(uid.word(at: 4) == 0xA400)
        #expect(uid.description == "9D 81 C2 00 00 A4 07 E0")
    }

    @Test(arguments: [0, 7, 9])
    func wrongLength(count: Int) {
        #expect(throws: LibreSensorUIDError.wrongLength(count)) { try LibreSensorUID([UInt8](repeating: 0, count: count)) }
    }
}
