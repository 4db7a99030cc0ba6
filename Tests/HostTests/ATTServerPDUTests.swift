import Bluetooth
import Testing
import Wire
@testable import Host

/// Decoding what a GATT server sends (Core v5.4 Vol 3 Part F §3.4), byte vectors built by hand
/// from the PDU tables of each section.
@Suite struct ATTServerPDUTests {
    typealias PDU = ATT.InboundPDU

    static let vectors: [(name: String, bytes: [UInt8], pdu: PDU)] = [
        // §3.4.1.1: Read Request 0x0A failed on handle 0x0003 with Insufficient Authentication.
        ("Error Response", [0x01, 0x0A, 0x03, 0x00, 0x05], .errorResponse(request: 0x0A, handle: 3, error: .insufficientAuthentication)),
        // §3.4.2.2: Server Rx MTU 247.
        ("Exchange MTU Response", [0x03, 0xF7, 0x00], .exchangeMTUResponse(serverRxMTU: 247)),
        // §3.4.3.2: format 1 (16-bit UUIDs): handle 4 → 0x2902.
        ("Find Information Response 16-bit", [0x05, 0x01, 0x04, 0x00, 0x02, 0x29],
         .findInformationResponse([.init(handle: 4, uuid: BluetoothUUID(0x2902))])),
        // §3.4.3.4: one range 9–12.
        ("Find By Type Value Response", [0x07, 0x09, 0x00, 0x0C, 0x00], .findByTypeValueResponse([.init(start: 9, end: 12)])),
        // §3.4.4.2: length 7: declaration at 2 = notify, value handle 3, UUID 0x2A37.
        ("Read By Type Response", [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x37, 0x2A],
         .readByTypeResponse([.init(handle: 2, value: [0x10, 0x03, 0x00, 0x37, 0x2A])])),
        ("Read Response", [0x0B, 0x01], .readResponse([0x01])),
        ("Read Response, empty value", [0x0B], .readResponse([])),
        ("Read Blob Response", [0x0D, 0xAA, 0xBB], .readBlobResponse([0xAA, 0xBB])),
        // §3.4.4.10: length 6: service 1–8 = 0x180D, service 9–12 = 0x180F.
        ("Read By Group Type Response", [0x11, 0x06, 0x01, 0x00, 0x08, 0x00, 0x0D, 0x18, 0x09, 0x00, 0x0C, 0x00, 0x0F, 0x18],
         .readByGroupTypeResponse([.init(start: 1, end: 8, value: [0x0D, 0x18]), .init(start: 9, end: 12, value: [0x0F, 0x18])])),
        ("Write Response", [0x13], .writeResponse),
        // §3.4.7.1 / §3.4.7.2: handle 3 with a heart-rate value.
        ("Notification", [0x1B, 0x03, 0x00, 0x06, 0x48], .notification(handle: 3, value: [0x06, 0x48])),
        ("Indication", [0x1D, 0x03, 0x00, 0x01], .indication(handle: 3, value: [0x01])),
        // The peer's client role: a Read Request (we must answer) and a Write Command (we must not).
        ("peer Read Request", [0x0A, 0x01, 0x00], .peerRequest(opcode: 0x0A, parameters: [0x01, 0x00])),
        ("peer Write Command", [0x52, 0x01, 0x00, 0x07], .peerCommand(opcode: 0x52)),
        ("peer Confirmation", [0x1E], .peerCommand(opcode: 0x1E)),
    ]

    @Test(arguments: vectors.indices)
    func decodesEveryPDUAndField(index: Int) throws {
        let (name, bytes, pdu) = Self.vectors[index]
        #expect(try PDU(bytes: bytes) == pdu, "\(name)")
    }

    @Test func responseOpcodesPairWithTheirRequests() throws {
        #expect(try PDU(bytes: [0x0B, 0x01]).responseOpcode == ATT.Opcode.response(to: ATT.Opcode.readRequest))
        #expect(try PDU(bytes: [0x13]).responseOpcode == ATT.Opcode.writeResponse)
        #expect(try PDU(bytes: [0x1B, 0x03, 0x00]).responseOpcode == nil)
        #expect(ATT.Opcode.response(to: 0x1B) == nil)
    }

    static let rejections: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("Error Response cut short", [0x01, 0x0A, 0x03, 0x00]),
        ("Error Response with a trailing byte", [0x01, 0x0A, 0x03, 0x00, 0x05, 0x00]),
        ("Exchange MTU Response cut short", [0x03, 0xF7]),
        ("Find Information format 3", [0x05, 0x03, 0x04, 0x00, 0x02, 0x29]),
        ("Find Information entry cut", [0x05, 0x01, 0x04, 0x00, 0x02]),
        ("Find Information with no entries", [0x05, 0x01]),
        ("Find By Type Value odd length", [0x07, 0x09, 0x00, 0x0C]),
        ("Read By Type length 1", [0x09, 0x01, 0x02]),
        ("Read By Type length does not divide", [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x37]),
        ("Read By Group Type length 3", [0x11, 0x03, 0x01, 0x00, 0x08]),
        ("Write Response with a parameter", [0x13, 0x00]),
        ("Notification without a handle", [0x1B, 0x03]),
        ("unknown response opcode", [0x0F]),
    ]

    @Test(arguments: rejections.indices)
    func rejectsMalformedPDUsWithATypedError(index: Int) {
        let (name, bytes) = Self.rejections[index]
        #expect(throws: WireError.self, "\(name)") { try PDU(bytes: bytes) }
    }

    @Test func errorCodesNameThemselvesAndKnowWhenSecurityHelps() {
        #expect(ATT.ErrorCode.insufficientAuthentication.description == "insufficient authentication (0x05)")
        #expect(ATT.ErrorCode(0x80).description == "application error (0x80)")
        #expect(ATT.ErrorCode.insufficientEncryption.needsSecurity)
        #expect(ATT.ErrorCode.insufficientEncryptionKeySize.needsSecurity)
        #expect(!ATT.ErrorCode.readNotPermitted.needsSecurity)
    }
}
