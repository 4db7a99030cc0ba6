import Testing
import Wire
@testable import Transmitters

@Suite struct BodySensorLocationTests {
    // gatt-xml body_sensor_location.xml (docs/protocols/sig-heart-rate.md §Body Sensor Location).
    @Test(arguments: [
        (UInt8(0), BodySensorLocation.other, "other"), (1, .chest, "chest"), (2, .wrist, "wrist"),
        (3, .finger, "finger"), (4, .hand, "hand"), (5, .earLobe, "ear lobe"), (6, .foot, "foot"),
        (7, .reserved(7), "reserved (7)"), (255, .reserved(255), "reserved (255)"),
    ])
    func decodesEveryValue(raw: UInt8, location: BodySensorLocation, text: String) throws {
        let decoded = try BodySensorLocation(decoding: [raw])
        #expect(decoded == location)
        #expect(decoded.rawValue == raw)
        #expect(decoded.description == text)
    }

    @Test(arguments: [
        ([UInt8](), WireError.truncated(field: "body sensor location", needed: 1, available: 0)),
        ([1, 0], .trailingBytes(what: "body sensor location", count: 1)),
    ])
    func rejectsWrongLengths(bytes: [UInt8], error: WireError) {
        #expect(throws: error) { try BodySensorLocation(decoding: bytes) }
    }
}
