import Bluetooth
import Testing
@testable import Host

/// What the GATT client puts on the wire (Core v5.4 Vol 3 Part F §3.4), byte vectors written
/// from each request's parameter table.
@Suite struct ATTRequestTests {
    static let vectors: [(name: String, request: ATT.Request, bytes: [UInt8])] = [
        // §3.4.2.1: Client Rx MTU 247.
        ("Exchange MTU", .exchangeMTU(clientRxMTU: 247), [0x02, 0xF7, 0x00]),
        // §3.4.3.1: handles 0x0004–0x0004.
        ("Find Information", .findInformation(start: 4, end: 4), [0x04, 0x04, 0x00, 0x04, 0x00]),
        // §3.4.3.3: primary service (0x2800) with value 0x180F, from 1 to 0xFFFF.
        ("Find By Type Value", .findByTypeValue(start: 1, end: 0xFFFF, type: 0x2800, value: [0x0F, 0x18]),
         [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0F, 0x18]),
        // §3.4.4.1: characteristic declarations (0x2803) in 1–8.
        ("Read By Type", .readByType(start: 1, end: 8, type: BluetoothUUID(0x2803)), [0x08, 0x01, 0x00, 0x08, 0x00, 0x03, 0x28]),
        ("Read", .read(handle: 0x0006), [0x0A, 0x06, 0x00]),
        // §3.4.4.5: offset 246 = 0x00F6.
        ("Read Blob", .readBlob(handle: 0x0003, offset: 246), [0x0C, 0x03, 0x00, 0xF6, 0x00]),
        // §3.4.4.9: primary services from 1.
        ("Read By Group Type", .readByGroupType(start: 1, end: 0xFFFF, type: BluetoothUUID(0x2800)), [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
        // §3.4.5.1: enable notifications on CCCD 0x0004.
        ("Write", .write(handle: 0x0004, value: [0x01, 0x00]), [0x12, 0x04, 0x00, 0x01, 0x00]),
    ]

    @Test(arguments: vectors.indices)
    func encodesEveryRequest(index: Int) {
        let (name, request, bytes) = Self.vectors[index]
        #expect(request.bytes == bytes, "\(name)")
        #expect(request.opcode == bytes[0], "\(name)")
        #expect(ATT.Opcode.response(to: request.opcode) == bytes[0] + 1, "\(name)")
    }

    @Test func encodesCommandsAndAnswers() {
        // §3.4.5.3 Write Command, §3.4.7.3 Confirmation, §3.4.1.1 Error Response, §3.4.2.2 MTU Response.
        #expect(ATT.writeCommand(handle: 0x0008, value: [0x01]) == [0x52, 0x08, 0x00, 0x01])
        #expect(ATT.confirmation == [0x1E])
        #expect(ATT.errorResponse(request: 0x10, handle: 0x0001, error: .attributeNotFound) == [0x01, 0x10, 0x01, 0x00, 0x0A])
        #expect(ATT.exchangeMTUResponse(serverRxMTU: 247) == [0x03, 0xF7, 0x00])
    }
}
