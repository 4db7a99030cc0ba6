import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct BatteryLevelTests {
    // gatt-xml battery_level.xml: u8 0–100 %, 101–255 reserved (docs/protocols/sig-common.md
    // §Battery Level).
    @Test(arguments: [UInt8(0), 1, 0x32, 0x63, 0x64])
    func decodesZeroThroughHundred(raw: UInt8) throws {
        let level = try BatteryLevel.decode([raw])
        #expect(level.value == raw)
        #expect(BatteryLevel.encode(level) == [raw])
    }

    @Test(arguments: [
        ([UInt8(0x65)], WireError.invalidValue(field: "battery level (101-255 reserved)", value: 101)),
        ([0xFF], .invalidValue(field: "battery level (101-255 reserved)", value: 255)),
        ([0x80], .invalidValue(field: "battery level (101-255 reserved)", value: 128)),
        ([], .truncated(field: "battery level", needed: 1, available: 0)),
        ([0x32, 0x00], .trailingBytes(what: "battery level", count: 1)),
    ])
    func rejectsReservedAndWrongLengths(bytes: [UInt8], error: WireError) {
        #expect(throws: error) { try BatteryLevel.decode(bytes) }
    }
}
