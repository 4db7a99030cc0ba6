import Testing
import Wire
@testable import Transmitters

@Suite struct BTHomeObjectTests {
    /// One object per row: its bytes (ID first) and the decoded value. Hand-assembled from the
    /// ID table in docs/protocols/bthome.md (bthome-ble const.py): little-endian, value × factor.
    static let vectors: [(bytes: [UInt8], quantity: BTHomeObject.Quantity, value: BTHomeObject.Value)] = [
        ([0x00, 0x09], .packetID, .number(9)),
        ([0x01, 0x61], .battery, .number(97)),
        ([0x02, 0xCA, 0x09], .temperature, .number(25.06)),         // 0x09CA = 2506 × 0.01
        ([0x02, 0x9C, 0xFF], .temperature, .number(-1.00)),         // signed: 0xFF9C = −100
        ([0x03, 0xBF, 0x13], .humidity, .number(50.55)),            // 0x13BF = 5055 × 0.01
        ([0x04, 0x13, 0x8A, 0x01], .pressure, .number(1008.83)),    // 0x018A13 = 100883 × 0.01
        ([0x05, 0x13, 0x8A, 0x14], .illuminance, .number(13460.67)),
        ([0x08, 0x2E, 0x05], .dewPoint, .number(13.26)),
        ([0x08, 0x2E, 0xF5], .dewPoint, .number(-27.70)),           // 0xF52E = −2770 × 0.01
        ([0x0C, 0x02, 0x0C], .voltage, .number(3.074)),             // 0x0C02 = 3074 × 0.001
        ([0x0F, 0x01], .binary("generic"), .state(1)),
        ([0x10, 0x00], .binary("power"), .state(0)),
        ([0x11, 0x01], .binary("opening"), .state(1)),
        ([0x15, 0x01], .binary("battery low"), .state(1)),
        ([0x16, 0x00], .binary("battery charging"), .state(0)),
        ([0x2D, 0x01], .binary("window"), .state(1)),
        ([0x2E, 0x23], .humidity, .number(35)),
        ([0x3A, 0x04], .button, .state(4)),                         // long press
        ([0x3A, 0x80], .button, .state(0x80)),                      // hold
        ([0x3C, 0x01, 0x03], .dimmer, .dimmer(event: 1, steps: 3)), // rotate left 3 steps
        ([0x3C, 0x02, 0xFE], .dimmer, .dimmer(event: 2, steps: -2)),
        ([0x45, 0xFA, 0x00], .temperature, .number(25.0)),          // 0x00FA = 250 × 0.1
        ([0x45, 0xF6, 0xFF], .temperature, .number(-1.0)),
        ([0x4A, 0x1E, 0x00], .voltage, .number(3.0)),
        ([0x50, 0x5D, 0x39, 0x61, 0x64], .timestamp, .timestamp(0x6461_395D)),
        ([0x53, 0x03, 0x48, 0x69, 0x21], .text, .text("Hi!")),
        ([0x54, 0x02, 0xAB, 0xCD], .raw, .raw([0xAB, 0xCD])),
        ([0x54, 0x00], .raw, .raw([])),
        ([0x57, 0xFB], .temperature, .number(-5)),
        ([0x58, 0x0A], .temperature, .number(3.5)),                 // 10 × 0.35
    ]

    @Test(arguments: vectors.indices)
    func decodesEveryKnownID(index: Int) throws {
        let vector = Self.vectors[index]
        var reader = ByteReader(vector.bytes)
        let object = try #require(try BTHomeObject.read(from: &reader))
        #expect(reader.isAtEnd, "the whole object is consumed")
        #expect(object.id == vector.bytes[0])
        #expect(object.format?.quantity == vector.quantity)
        // Exactly the decimal of the table (5055 × 0.01 is 50.55, not 50.550000000000004), so
        // it prints as the device meant it.
        #expect(object.value == vector.value)
    }

    /// The humidity of the report that showed the bug: 0x1FD6 = 8150 × 0.01 = 81.5 %, which a
    /// whole-percent reading made 82. And a 0x58 temperature, factor 0.35: 0x23 = 35 → 12.25.
    @Test func decimalsPrintAsSent() throws {
        var reader = ByteReader([0x03, 0xD6, 0x1F, 0x02, 0xCA, 0x09, 0x45, 0x11, 0x01, 0x58, 0x23])
        var printed: [String] = []
        while let object = try BTHomeObject.read(from: &reader) {
            guard case let .number(value) = object.value else { continue }
            printed.append("\(value)")
        }
        #expect(printed == ["81.5", "25.06", "27.3", "12.25"])
    }

    @Test(arguments: vectors.indices)
    func encodesBackToTheSameBytes(index: Int) throws {
        let vector = Self.vectors[index]
        var reader = ByteReader(vector.bytes)
        let object = try #require(try BTHomeObject.read(from: &reader))
        #expect(object.encoded == vector.bytes)
    }

    @Test(arguments: [UInt8(0x06), 0x07, 0x09, 0x0A, 0x0D, 0x12, 0x14, 0x2F, 0x3B, 0x46, 0x55, 0x59, 0xF0, 0xFF])
    func unknownIDsAreNotGuessed(id: UInt8) throws {
        #expect(BTHomeObject.format(of: id) == nil)
        var reader = ByteReader([id, 0x01, 0x02])
        #expect(try BTHomeObject.read(from: &reader) == nil)
        #expect(reader.offset == 0, "nothing consumed")
    }

    @Test(arguments: [
        [UInt8(0x02), 0xCA],        // temperature needs 2 bytes
        [0x04, 0x13, 0x8A],         // pressure needs 3
        [0x3C, 0x01],               // dimmer needs 2
        [0x50, 0x01, 0x02, 0x03],   // timestamp needs 4
        [0x53, 0x05, 0x41, 0x42],   // text claims 5 bytes, has 2
        [0x54],                     // raw without its length byte
        [0x01],                     // battery without a value
    ])
    func truncatedValuesThrow(bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        #expect(throws: WireError.self) { _ = try BTHomeObject.read(from: &reader) }
    }

    @Test func valuesOutsideTheFieldAreNotEncoded() {
        #expect(BTHomeObject(id: 0x02, value: .number(327.68)).encoded == nil)   // > i16 max × 0.01
        #expect(BTHomeObject(id: 0x02, value: .number(-327.68)).encoded == [0x02, 0x00, 0x80])
        #expect(BTHomeObject(id: 0x01, value: .number(-1)).encoded == nil)       // unsigned
        #expect(BTHomeObject(id: 0x01, value: .state(1)).encoded == nil)         // wrong kind
        #expect(BTHomeObject(id: 0x06, value: .number(1)).encoded == nil)        // unknown id
        #expect(BTHomeObject(id: 0x53, value: .raw([1])).encoded == nil)
    }
}
