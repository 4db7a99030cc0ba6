import Testing
import Wire
@testable import HCI

/// ACL data packets (Core v5.4 Vol 4 Part E §5.4.2; docs/protocols/hci.md §Packet headers). The
/// payload is an L2CAP basic frame (length 3, CID 0x0004) carrying ATT Read Request `0A 03 00`.
struct ACLDataTests {
    static let payload = [UInt8](hex: "03 00 04 00 0A 03 00")

    @Test(arguments: [
        (HCI.ACLData.Boundary.firstNonFlushable, "40 00"),
        (.continuing, "40 10"),
        (.firstFlushable, "40 20"),
        (.complete, "40 30"),
    ])
    func boundaryFlagsInTheHeader(_ boundary: HCI.ACLData.Boundary, _ header: String) throws {
        let bytes = [UInt8](hex: "\(header) 07 00") + Self.payload
        let packet = HCI.ACLData(handle: 0x0040, boundary: boundary, data: Self.payload)
        #expect(packet.bytes == bytes)
        let decoded = try HCI.ACLData(bytes: bytes)
        #expect(decoded.handle == 0x0040)
        #expect(decoded.boundary == boundary)
        #expect(decoded.data == Self.payload)
        #expect(decoded.boundary.isFirst == (boundary != .continuing))
    }

    @Test func largestHandleAndEmptyPayload() throws {
        let packet = HCI.ACLData(handle: 0x0EFF, boundary: .firstNonFlushable, data: [])
        #expect(packet.bytes == [0xFF, 0x0E, 0x00, 0x00])
        #expect(try HCI.ACLData(bytes: packet.bytes) == packet)
    }

    /// A handle wider than 12 bits must not leak into the flag bits.
    @Test func encodingMasksTheHandle() {
        let packet = HCI.ACLData(handle: 0xF041, boundary: .firstNonFlushable, data: [0xAA])
        #expect(packet.bytes == [0x41, 0x00, 0x01, 0x00, 0xAA])
    }

    /// Lengths above 255 use both bytes of Data_Total_Length.
    @Test func twoByteLength() throws {
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let packet = HCI.ACLData(handle: 0x0001, boundary: .firstFlushable, data: data)
        #expect(Array(packet.bytes.prefix(4)) == [0x01, 0x20, 0x2C, 0x01])
        #expect(try HCI.ACLData(bytes: packet.bytes) == packet)
    }

    @Test(arguments: [
        ("", WireError.truncated(field: "handle and flags", needed: 2, available: 0)),
        ("40", .truncated(field: "handle and flags", needed: 2, available: 1)),
        ("40 20 07", .truncated(field: "Data_Total_Length", needed: 2, available: 1)),
        ("40 20 07 00 03 00", .malformed("ACL length field says 7 byte(s) but 2 follow")),
        ("40 20 01 00 03 00", .malformed("ACL length field says 1 byte(s) but 2 follow")),
        ("40 20 FF FF", .malformed("ACL length field says 65535 byte(s) but 0 follow")),
        ("40 60 00 00", .invalidValue(field: "Broadcast_Flag", value: 1)),
        ("40 A0 00 00", .invalidValue(field: "Broadcast_Flag", value: 2)),
        ("40 F0 00 00", .invalidValue(field: "Broadcast_Flag", value: 3)),
    ])
    func rejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.ACLData(bytes: [UInt8](hex: hex)) }
    }
}
