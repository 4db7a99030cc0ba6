import Testing
import Wire
@testable import Transmitters

// Layouts from docs/protocols/dexcom-g5-g6.md §Authentication (CGMBLEKit Messages/*, xDrip
// g5model/*, xdrip-js lib/messages/*).
struct DexcomAuthMessagesTests {
    @Test func authRequestTx() throws {
        let token: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
        let request = Dexcom.AuthRequestTx(token: token)
        #expect(request.bytes == [UInt8](hex: "01 01 23 45 67 89 ab cd ef 02"))
        #expect(Dexcom.AuthRequestTx(token: token, slot: .receiver).bytes.last == 0x01)
        let decoded = try Dexcom.AuthRequestTx(decoding: request.bytes)
        #expect(decoded.token == token)
        #expect(decoded.slot == .phone)
    }

    @Test func authChallengeRx() throws {
        // tokenHash = hash(0123456789abcdef) under ID 123456 (the docs/protocols/dexcom-g5-g6.md
        // §Authentication vector), challenge 1..8.
        let bytes = [UInt8](hex: "03 e6 0d 4a 79 99 b0 fb b2 01 02 03 04 05 06 07 08")
        let message = try Dexcom.AuthChallengeRx(decoding: bytes)
        #expect(message.tokenHash == [UInt8](hex: "e6 0d 4a 79 99 b0 fb b2"))
        #expect(message.challenge == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(message.bytes == bytes)
    }

    @Test func authChallengeTxStatusKeepAliveBond() throws {
        #expect(Dexcom.AuthChallengeTx(challengeHash: [1, 2, 3, 4, 5, 6, 7, 8]).bytes == [4, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try Dexcom.AuthChallengeTx(decoding: [4, 1, 2, 3, 4, 5, 6, 7, 8]).challengeHash == [1, 2, 3, 4, 5, 6, 7, 8])
        let status = try Dexcom.AuthStatusRx(decoding: [0x05, 0x01, 0x02])
        #expect(status.authenticated)
        #expect(!status.bonded)  // only 1 means bonded
        #expect(try Dexcom.AuthStatusRx(decoding: [0x05, 0x01, 0x01]) == Dexcom.AuthStatusRx(authenticated: true, bonded: true))
        #expect(try Dexcom.AuthStatusRx(decoding: [0x05, 0x00, 0x01]) == Dexcom.AuthStatusRx(authenticated: false, bonded: true))
        #expect(Dexcom.KeepAliveTx().bytes == [0x06, 25])
        #expect(Dexcom.KeepAliveTx(seconds: 60).bytes == [0x06, 60])
        #expect(try Dexcom.KeepAliveTx(decoding: [0x06, 60]).seconds == 60)
        #expect(Dexcom.BondRequestTx().bytes == [0x07])
        #expect(try Dexcom.BondRequestRx(decoding: [0x08, 0x01]).succeeded)
        #expect(Dexcom.DisconnectTx().bytes == [0x09])
        _ = try Dexcom.DisconnectTx(decoding: [0x09])
        _ = try Dexcom.BondRequestTx(decoding: [0x07])
    }

    static let badChallenges: [([UInt8], String)] = [
        ([], "empty"),
        ([0x03] + [UInt8](repeating: 0, count: 15), "truncated"),
        ([0x03] + [UInt8](repeating: 0, count: 17), "oversized"),
        ([0x05, 0x01, 0x01] + [UInt8](repeating: 0, count: 14), "wrong opcode"),
    ]

    @Test(arguments: badChallenges)
    func authChallengeRejects(_ bytes: [UInt8], _ what: String) {
        #expect(throws: WireError.self, "\(what)") { try Dexcom.AuthChallengeRx(decoding: bytes) }
    }

    @Test(arguments: [[0x05, 0x01], [0x05, 0x01, 0x01, 0x00], [0x03, 0x01, 0x01], [0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x07]] as [[UInt8]])
    func statusAndRequestReject(_ bytes: [UInt8]) {
        #expect(throws: WireError.self) { try Dexcom.AuthStatusRx(decoding: bytes) }
        #expect(throws: WireError.self) { try Dexcom.AuthRequestTx(decoding: bytes) }  // last one: slot 7 unknown
    }
}
