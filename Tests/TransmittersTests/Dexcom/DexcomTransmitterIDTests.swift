import Testing
import Wire
@testable import Transmitters

struct DexcomTransmitterIDTests {
    // docs/protocols/dexcom-g5-g6.md §Authentication [verified]; CGMBLEKit
    // CGMBLEKitTests/TransmitterIDTests.swift.
    @Test func hashVectorForID123456() {
        let key = Dexcom.cryptKey(forID: "123456")
        #expect(key == Array("0012345600123456".utf8))
        #expect(Dexcom.hash([UInt8](hex: "01 23 45 67 89 ab cd ef"), key: key) == [UInt8](hex: "e6 0d 4a 79 99 b0 fb b2"))
    }

    @Test func generationsNamesAndKeys() throws {
        let g5 = try Dexcom.TransmitterID("4023AB")
        #expect(g5.generation == .g5)
        #expect(g5.advertisedName == "DexcomAB")
        let g6 = try Dexcom.TransmitterID("81h2xy")  // lower case is upper-cased
        #expect(g6.rawValue == "81H2XY")
        #expect(g6.generation == .g6)
        #expect(g6.advertisedName == "DexcomXY")
        #expect(g6.cryptKey == Array("0081H2XY0081H2XY".utf8))
        #expect(g6.hash([1, 2, 3, 4, 5, 6, 7, 8]) == Dexcom.hash([1, 2, 3, 4, 5, 6, 7, 8], key: g6.cryptKey))
    }

    @Test(arguments: [
        ("12345", Dexcom.TransmitterIDError.wrongLength("12345")),
        ("8123456", .wrongLength("8123456")),
        ("", .wrongLength("")),
        ("81-345", .invalidCharacters("81-345")),
        ("8é2345", .invalidCharacters("8é2345")),
        ("123456", .unknownGeneration("123456")),
        ("A12345", .unknownGeneration("A12345")),
        // Firefly G6 prefixes (xdrip-js, xdripswift): they pair with J-PAKE, not this handshake.
        ("8G1234", .fireflyUnsupported("8G1234")),
        ("8h12ab", .fireflyUnsupported("8h12ab")),
        ("8J0000", .fireflyUnsupported("8J0000")),
        ("8LZZZZ", .fireflyUnsupported("8LZZZZ")),
        ("8R9999", .fireflyUnsupported("8R9999")),
    ])
    func rejects(_ text: String, _ error: Dexcom.TransmitterIDError) {
        #expect(throws: error) { try Dexcom.TransmitterID(text) }
    }
}
