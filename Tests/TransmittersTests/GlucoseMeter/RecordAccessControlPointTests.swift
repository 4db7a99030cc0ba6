import Testing
import Wire
@testable import Transmitters

@Suite struct RecordAccessControlPointTests {
    // docs/protocols/sig-glucose.md §Record Access Control Point and the opcode/operator table.
    @Test(arguments: [
        (RACP.Request.reportAllRecords, [UInt8](hex: "01 01"), RACP.Opcode.reportStoredRecords),
        (.reportRecords(atLeast: 0x012A), [UInt8](hex: "01 03 01 2a 01"), .reportStoredRecords),
        (.abort, [UInt8](hex: "03 00"), .abortOperation),
        (.reportNumberOfAllRecords, [UInt8](hex: "04 01"), .reportNumberOfStoredRecords),
    ])
    func encodesRequests(request: RACP.Request, bytes: [UInt8], opcode: RACP.Opcode) {
        #expect(request.encoded == bytes)
        #expect(request.opcode == opcode)
    }

    @Test(arguments: [
        ([UInt8](hex: "06 00 01 01"), RACP.Response.responseCode(request: 1, code: .success)),
        ([UInt8](hex: "06 00 01 06"), .responseCode(request: 1, code: .noRecordsFound)),
        ([UInt8](hex: "06 00 03 01"), .responseCode(request: 3, code: .success)),
        ([UInt8](hex: "06 00 01 04"), .responseCode(request: 1, code: .operatorNotSupported)),
        ([UInt8](hex: "06 00 01 63"), .responseCode(request: 1, code: .init(rawValue: 0x63))),
        ([UInt8](hex: "05 00 05 01"), .numberOfStoredRecords(0x0105)),
    ])
    func decodesResponses(bytes: [UInt8], response: RACP.Response) throws {
        #expect(try RACP.Response(decoding: bytes) == response)
    }

    @Test(arguments: [
        [UInt8](), [UInt8](hex: "06"), [UInt8](hex: "06 00 01"), [UInt8](hex: "06 01 01 01"),
        [UInt8](hex: "06 00 01 01 00"), [UInt8](hex: "05 00 05"), [UInt8](hex: "01 01"),
    ])
    func rejects(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try RACP.Response(decoding: bytes) }
    }

    @Test func responseCodesHaveNames() {
        #expect(RACP.ResponseCode.procedureNotCompleted.description == "procedure not completed")
        #expect(RACP.ResponseCode.operandNotSupported.description == "operand not supported")
        #expect(RACP.ResponseCode(rawValue: 0).description == "reserved 0")
        #expect(RACP.ResponseCode(rawValue: 10).description == "reserved 10")
    }
}
