import Testing
@testable import Transmitters

@Suite struct OperationFailureTests {
    // ATT error codes, Core v5.4 Vol 3 Part F §3.4.1.1 (docs/protocols/att-l2cap.md §ATT error codes).
    @Test(arguments: [
        (OperationFailure.attError(code: 0x05), true), (.attError(code: 0x0C), true), (.attError(code: 0x0F), true),
        (.attError(code: 0x08), false), (.attError(code: 0x02), false), (.attError(code: 0x0E), false),
        (.attError(code: 0x80), false), (.timedOut, false), (.unsupported("no notify"), false), (.other("x"), false),
    ])
    func pairingCuresOnlyAuthenticationAndEncryptionErrors(failure: OperationFailure, cured: Bool) {
        #expect(failure.isCuredByPairing == cured)
    }

    @Test func describes() {
        #expect(OperationFailure.attError(code: 0x05).description == "ATT error 0x05 (insufficient authentication)")
        #expect(OperationFailure.attError(code: 0x0F).description == "ATT error 0x0F (insufficient encryption)")
        #expect(OperationFailure.attError(code: 0x81).description == "ATT error 0x81")
        #expect(OperationFailure.timedOut.description == "timed out")
        #expect(GATTOperation.subscribe(0x2A37).description == "subscribe 2A37")
        #expect(GATTOperation.write(0x3534).characteristic == 0x3534)
    }
}
