import Testing
import Wire
@testable import SMP

/// Pairing Confirm/Random/Public Key/DHKey Check, Security Request and Keypress Notification
/// (Core v5.4 Vol 3 Part H §3.5.3–3.5.8, §3.6.7); byte layouts from the spec's field tables.
struct PairingValuesTests {
    static let sixteen = [UInt8](0x10...0x1F)

    @Test func confirmRandomAndDHKeyCheckCarry16WireBytes() throws {
        let confirm = try SMP.PairingConfirm(decoding: [0x03] + Self.sixteen)
        #expect(confirm.value == Self.sixteen)
        #expect(confirm.encoded == [0x03] + Self.sixteen)
        let random = try SMP.PairingRandom(decoding: [0x04] + Self.sixteen)
        #expect(random.value == Self.sixteen)
        #expect(random.encoded == [0x04] + Self.sixteen)
        let check = try SMP.PairingDHKeyCheck(decoding: [0x0D] + Self.sixteen)
        #expect(check.value == Self.sixteen)
        #expect(check.encoded == [0x0D] + Self.sixteen)
    }

    @Test func publicKeyIsXThenY() throws {
        let x = [UInt8](0..<32), y = [UInt8](100..<132)
        let key = try SMP.PairingPublicKey(decoding: [0x0C] + x + y)
        #expect(key.x == x)
        #expect(key.y == y)
        #expect(key.encoded == [0x0C] + x + y)
    }

    @Test func securityRequestCarriesAuthReq() throws {
        let request = try SMP.SecurityRequest(decoding: [0x0B, 0x09])
        #expect(request.authenticationRequirements == [.bonding, .secureConnections])
        #expect(SMP.SecurityRequest([.bonding, .mitm]).encoded == [0x0B, 0x05])
    }

    @Test(arguments: SMP.KeypressNotification.Kind.allCases)
    func keypressNotificationRoundTrips(kind: SMP.KeypressNotification.Kind) throws {
        #expect(try SMP.KeypressNotification(decoding: [0x0E, kind.rawValue]).type == kind)
        #expect(SMP.KeypressNotification(kind).encoded == [0x0E, kind.rawValue])
    }

    @Test func encodersNeverProduceAWrongLength() {
        #expect(SMP.PairingConfirm([1, 2, 3]).encoded == [0x03, 1, 2, 3] + [UInt8](repeating: 0, count: 13))
        #expect(SMP.PairingRandom([UInt8](repeating: 9, count: 20)).encoded.count == 17)
    }

    @Test(arguments: [
        ([0x03] + [UInt8](repeating: 0, count: 15), SMP.PDUError.wrongLength(.pairingConfirm, expected: 17, actual: 16)),
        ([0x04] + [UInt8](repeating: 0, count: 17), .wrongLength(.pairingRandom, expected: 17, actual: 18)),
        ([0x0C] + [UInt8](repeating: 0, count: 63), .wrongLength(.pairingPublicKey, expected: 65, actual: 64)),
        ([0x0D], .wrongLength(.pairingDHKeyCheck, expected: 17, actual: 1)),
        ([0x0B], .wrongLength(.securityRequest, expected: 2, actual: 1)),
        ([0x0E, 0x05], .invalidValue(.keypressNotification, field: "notification type", value: 5)),
    ])
    func rejectsMalformed(bytes: [UInt8], error: SMP.PDUError) {
        #expect(throws: error) { try SMP.Command(decoding: bytes) }
    }
}
