import Testing
import Wire
@testable import SMP

/// Pairing Failed reasons, Core v5.4 Vol 3 Part H §3.5.5 Table 3.7 (values also in BlueZ
/// monitor/l2cap.c, docs/protocols/smp.md).
struct PairingFailedTests {
    static let table: [(SMP.PairingFailed.Reason, UInt8)] = [
        (.passkeyEntryFailed, 0x01), (.oobNotAvailable, 0x02), (.authenticationRequirements, 0x03),
        (.confirmValueFailed, 0x04), (.pairingNotSupported, 0x05), (.encryptionKeySize, 0x06),
        (.commandNotSupported, 0x07), (.unspecifiedReason, 0x08), (.repeatedAttempts, 0x09),
        (.invalidParameters, 0x0A), (.dhKeyCheckFailed, 0x0B), (.numericComparisonFailed, 0x0C),
        (.brEdrPairingInProgress, 0x0D), (.crossTransportKeyDerivationNotAllowed, 0x0E),
    ]

    @Test(arguments: table)
    func everyReasonHasItsSpecValue(reason: SMP.PairingFailed.Reason, value: UInt8) throws {
        #expect(reason.rawValue == value)
        #expect(SMP.PairingFailed(reason).encoded == [0x05, value])
        #expect(try SMP.PairingFailed(decoding: [0x05, value]).reason == reason)
    }

    @Test func allDefinedListsTheFourteenInOrder() {
        #expect(SMP.PairingFailed.Reason.allDefined == Self.table.map(\.0))
    }

    @Test func aReservedReasonIsKeptNotRejected() throws {
        let failed = try SMP.PairingFailed(decoding: [0x05, 0x42])
        #expect(failed.reason == .reserved(0x42))
        #expect(failed.encoded == [0x05, 0x42])
    }

    @Test(arguments: [[UInt8]([0x05]), [0x05, 0x08, 0x00]])
    func rejectsWrongLength(bytes: [UInt8]) {
        #expect(throws: SMP.PDUError.wrongLength(.pairingFailed, expected: 2, actual: bytes.count)) {
            try SMP.PairingFailed(decoding: bytes)
        }
    }
}
