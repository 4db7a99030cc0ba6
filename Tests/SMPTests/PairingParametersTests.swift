import Testing
import Wire
@testable import SMP

struct PairingParametersTests {
    /// The Just Works bonding request of docs/protocols/smp.md (constructed from the field
    /// definitions of Core v5.4 Vol 3 Part H §3.5.1, not from a capture).
    @Test func decodesTheTypicalJustWorksBondingRequest() throws {
        let request = try SMP.PairingRequest(decoding: [UInt8](hex: "01 03 00 01 10 00 01"))
        let p = request.parameters
        #expect(p.ioCapability == .noInputNoOutput)
        #expect(p.oobDataPresent == false)
        #expect(p.authenticationRequirements == [.bonding])
        #expect(p.authenticationRequirements.requestsBonding)
        #expect(p.maximumKeySize == 16)
        #expect(p.initiatorKeyDistribution == [])
        #expect(p.responderKeyDistribution == [.encryptionKey])
        #expect(request.encoded == [UInt8](hex: "01 03 00 01 10 00 01"))
    }

    /// The c1 sample's pairing response (Vol 3 Part H §2.2.3: pres = 05000800000302, MSB-first).
    @Test func decodesTheC1SampleResponse() throws {
        let response = try SMP.PairingResponse(decoding: spec("05000800000302"))
        let p = response.parameters
        #expect(p.ioCapability == .noInputNoOutput)
        #expect(p.oobDataPresent == false)
        #expect(p.authenticationRequirements == [])
        #expect(p.maximumKeySize == 8)
        #expect(p.initiatorKeyDistribution == [])
        #expect(p.responderKeyDistribution == [.encryptionKey, .signingKey])
    }

    @Test func encodesEveryFlag() {
        let p = SMP.PairingParameters(
            ioCapability: .keyboardDisplay, oobDataPresent: true,
            authenticationRequirements: [.bonding, .mitm, .secureConnections, .keypress, .ct2], maximumKeySize: 7,
            initiatorKeyDistribution: [.identityKey, .signingKey], responderKeyDistribution: [.encryptionKey, .identityKey, .linkKey])
        #expect(SMP.PairingResponse(p).encoded == [0x02, 0x04, 0x01, 0x3D, 0x07, 0x06, 0x0B])
    }

    @Test(arguments: SMP.IOCapability.allCases, [UInt8(7), 12, 16])
    func roundTrips(io: SMP.IOCapability, keySize: UInt8) throws {
        let p = SMP.PairingParameters(
            ioCapability: io, authenticationRequirements: [.bonding, .secureConnections], maximumKeySize: keySize,
            initiatorKeyDistribution: [.identityKey], responderKeyDistribution: [.encryptionKey, .identityKey])
        #expect(try SMP.PairingRequest(decoding: SMP.PairingRequest(p).encoded).parameters == p)
    }

    @Test(arguments: [
        ([UInt8](hex: "01 03 00 01 10 00"), SMP.PDUError.wrongLength(.pairingRequest, expected: 7, actual: 6)),
        ([UInt8](hex: "01 03 00 01 10 00 01 00"), .wrongLength(.pairingRequest, expected: 7, actual: 8)),
        ([UInt8](hex: "01 03 00 01 06 00 01"), .invalidValue(.pairingRequest, field: "maximum encryption key size", value: 6)),
        ([UInt8](hex: "01 03 00 01 11 00 01"), .invalidValue(.pairingRequest, field: "maximum encryption key size", value: 17)),
        ([UInt8](hex: "01 05 00 01 10 00 01"), .invalidValue(.pairingRequest, field: "IO capability", value: 5)),
        ([UInt8](hex: "01 03 02 01 10 00 01"), .invalidValue(.pairingRequest, field: "OOB data flag", value: 2)),
        ([UInt8](hex: "02 03 00 01 10 00 01"), .wrongCode(expected: .pairingRequest, actual: 0x02)),
        ([], .empty),
    ])
    func rejectsMalformedRequests(bytes: [UInt8], error: SMP.PDUError) {
        #expect(throws: error) { try SMP.PairingRequest(decoding: bytes) }
    }
}
