import Testing
import Wire
@testable import Transmitters

@Suite struct SystemIDTests {
    // docs/protocols/sig-common.md §Device Information: u40 manufacturer identifier, then u24 OUI,
    // each least-significant first.
    @Test func decodesFields() throws {
        let id = try SystemID(decoding: [UInt8](hex: "01 02 03 04 05 06 07 08"))
        #expect(id.manufacturerIdentifier == 0x05_0403_0201)
        #expect(id.organizationallyUniqueIdentifier == 0x08_0706)
        #expect(id.encode() == [UInt8](hex: "01 02 03 04 05 06 07 08"))
        #expect(id.description == "OUI 080706 id 0504030201")
    }

    @Test func masksOversizedFieldsOnConstruction() {
        let id = SystemID(manufacturerIdentifier: 0xFFFF_FF12_3456_7890, organizationallyUniqueIdentifier: 0xFFAB_CDEF)
        #expect(id.manufacturerIdentifier == 0x12_3456_7890)
        #expect(id.organizationallyUniqueIdentifier == 0xAB_CDEF)
    }

    @Test(arguments: [
        ("01 02 03 04 05 06 07", WireError.truncated(field: "system ID OUI", needed: 3, available: 2)),
        ("01 02 03", .truncated(field: "system ID manufacturer identifier", needed: 4, available: 3)),
        ("01 02 03 04 05 06 07 08 09", .trailingBytes(what: "system ID", count: 1)),
    ])
    func rejectsWrongLengths(hex: String, error: WireError) {
        #expect(throws: error) { try SystemID(decoding: [UInt8](hex: hex)) }
    }
}
