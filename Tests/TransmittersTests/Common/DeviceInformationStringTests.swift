import Testing
@testable import Transmitters

@Suite struct DeviceInformationStringTests {
    @Test(arguments: [
        ("48 52 4D", "HRM"),
        ("48 52 4D 00 00 00", "HRM"),            // NUL padding of a fixed buffer, trimmed
        ("41 00 42", "A\u{0}B"),                 // an interior NUL is content, kept
        ("00 00", ""),
        ("", ""),
        ("50 6F 6C 61 72 20 45 6C 65 63 74 72 6F 20 4F 79", "Polar Electro Oy"),
        ("43 61 66 C3 A9", "Café"),              // two-byte UTF-8 sequence
        ("41 FF 42", "A\u{FFFD}B"),              // invalid byte replaced, not dropped
        ("41 C3", "A\u{FFFD}"),                  // truncated sequence at the end
        ("E2 82 AC 00", "€"),                    // three-byte sequence, then padding
    ])
    func decodes(hex: String, text: String) {
        #expect(DeviceInformationString.decode([UInt8](hex: hex)) == text)
    }

    @Test func mapsCharacteristics() {
        // docs/protocols/sig-common.md §Device Information: 0x2A24 model … 0x2A29 manufacturer.
        let expected: [(DeviceInformationString, UInt16)] = [
            (.modelNumber, 0x2A24), (.serialNumber, 0x2A25), (.firmwareRevision, 0x2A26),
            (.hardwareRevision, 0x2A27), (.softwareRevision, 0x2A28), (.manufacturerName, 0x2A29),
        ]
        #expect(DeviceInformationString.allCases.count == expected.count)
        for (field, uuid) in expected {
            #expect(field.characteristic.uuid16 == uuid)
            #expect(DeviceInformationString(characteristic: field.characteristic) == field)
        }
        #expect(DeviceInformationString(characteristic: 0x2A23) == nil)
        #expect(DeviceInformationString(characteristic: 0x2A2A) == nil)
    }
}
