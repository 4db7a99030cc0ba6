import Testing
import Wire
@testable import Transmitters

@Suite struct PnPIDTests {
    // docs/protocols/sig-common.md §Device Information: source u8, vendor u16, product u16, version
    // u16. Hand-assembled with the Bluetooth SIG company identifier 0x006B (Polar Electro Oy) as
    // vendor.
    @Test func decodesFields() throws {
        let bytes = [UInt8](hex: "01 6B 00 34 12 78 56")
        let id = try PnPID(decoding: bytes)
        #expect(id.vendorIDSource == .bluetoothSIG)
        #expect(id.vendorID == 0x006B)
        #expect(id.productID == 0x1234)
        #expect(id.productVersion == 0x5678)
        #expect(id.encode() == bytes)
        #expect(id.description == "source 1 vendor 0x006b product 0x1234 version 0x5678")
    }

    @Test(arguments: [(UInt8(1), PnPID.VendorIDSource.bluetoothSIG), (2, .usbImplementersForum), (0, .reserved(0)), (3, .reserved(3))])
    func sources(raw: UInt8, source: PnPID.VendorIDSource) throws {
        let id = try PnPID(decoding: [raw, 0, 0, 0, 0, 0, 0])
        #expect(id.vendorIDSource == source)
        #expect(source.rawValue == raw)
    }

    @Test(arguments: [
        ("01 6B 00 34 12 78", WireError.truncated(field: "PnP product version", needed: 2, available: 1)),
        ("", .truncated(field: "PnP vendor ID source", needed: 1, available: 0)),
        ("01 6B", .truncated(field: "PnP vendor ID", needed: 2, available: 1)),
        ("01 6B 00 34 12 78 56 00", .trailingBytes(what: "PnP ID", count: 1)),
    ])
    func rejectsWrongLengths(hex: String, error: WireError) {
        #expect(throws: error) { try PnPID(decoding: [UInt8](hex: hex)) }
    }
}
