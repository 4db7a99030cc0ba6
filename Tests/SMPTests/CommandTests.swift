import Testing
import Wire
@testable import SMP

/// Dispatch over every SMP code (Core v5.4 Vol 3 Part H §3.3, Table 3.1).
struct CommandTests {
    /// One well-formed PDU per code, built from the spec's lengths.
    static let samples: [[UInt8]] = SMP.Code.allCases.map { code in
        var pdu = [code.rawValue] + [UInt8](repeating: 0, count: code.pduLength - 1)
        switch code {
        case .pairingRequest, .pairingResponse: pdu = [code.rawValue, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01]
        case .pairingFailed: pdu[1] = 0x08
        default: break
        }
        return pdu
    }

    @Test(arguments: samples)
    func everyCodeDecodesAndReencodes(pdu: [UInt8]) throws {
        let command = try SMP.Command(decoding: pdu)
        #expect(command.code.rawValue == pdu[0])
        #expect(command.encoded == pdu)
    }

    @Test func pduLengthsFollowTheSpec() {
        let lengths = SMP.Code.allCases.map(\.pduLength)
        #expect(lengths == [7, 7, 17, 17, 2, 17, 11, 17, 8, 17, 2, 65, 17, 2])
    }

    @Test(arguments: [UInt8(0x00), 0x0F, 0x10, 0x80, 0xFF])
    func unknownCodesAreNamed(code: UInt8) {
        #expect(throws: SMP.PDUError.unknownCode(code)) { try SMP.Command(decoding: [code, 0x01]) }
    }

    @Test func emptyIsRejected() {
        #expect(throws: SMP.PDUError.empty) { try SMP.Command(decoding: []) }
    }

    /// Random garbage of every length up to 70 bytes: decoding may fail, never trap.
    @Test func garbageNeverTraps() {
        var random = SeededRandom(seed: 0xBAD)
        var decoded = 0
        for length in 0...70 {
            for _ in 0..<40 {
                var pdu = random.bytes(length)
                if length > 0 { pdu[0] %= 0x10 }  // mostly known codes, so the field decoders run
                if (try? SMP.Command(decoding: pdu)) != nil { decoded += 1 }
            }
        }
        #expect(decoded > 0)  // some random PDUs have a valid length and field values
    }
}
