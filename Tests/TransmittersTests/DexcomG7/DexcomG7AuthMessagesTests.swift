import Testing
import Wire
@testable import Transmitters

// docs/protocols/dexcom-g7.md §Pairing, once per sensor: the framing of the steps the G7 does
// not share with the G6 (those are the G6's types, tested with them).
struct DexcomG7AuthMessagesTests {
    @Test func requests() {
        #expect(DexcomG7.KeyExchangeRoundTx(round: 2).bytes == [0x0A, 0x02])
        #expect(DexcomG7.ChallengeTx(token: [1, 2, 3, 4, 5, 6, 7, 8], displayType: .phone).bytes == [0x02, 1, 2, 3, 4, 5, 6, 7, 8, 0x02])
        #expect(DexcomG7.CertificateInfoTx(index: 1, length: 465).bytes == [UInt8](hex: "0B 01 d1010000"))
        #expect(DexcomG7.CertificateInfoTx(index: 2, length: 0).bytes == [UInt8](hex: "0B 02 00000000"))
    }

    @Test func authStatus() throws {
        let bonded = try DexcomG7.AuthStatusRx(decoding: [0x05, 0x01, 0x01])
        #expect(bonded.isAuthenticated && bonded.isBonded && !bonded.isRefused)
        let slotTaken = try DexcomG7.AuthStatusRx(decoding: [0x05, 0x02, 0x02])
        #expect(slotTaken.isRefused)
        #expect(slotTaken.refusal == .displaySlotTaken)
        #expect(try DexcomG7.AuthStatusRx(decoding: [0x05, 0x02, 0x03]).refusal == .noKeyForUs)
        #expect(try DexcomG7.AuthStatusRx(decoding: [0x05, 0x01, 0x02]).refusal == nil)
        #expect(throws: WireError.self) { try DexcomG7.AuthStatusRx(decoding: [0x05, 0x01]) }
    }

    @Test func certificateAcknowledgements() throws {
        let ack = try DexcomG7.CertificateInfoRx(decoding: [UInt8](hex: "0B 00 01 2c01"))
        #expect(ack.status == 0)
        #expect(ack.sensorCertificateLength == 300)
        #expect(try DexcomG7.CertificateInfoRx(decoding: [0x0B, 0x00]).sensorCertificateLength == nil)
        #expect(try DexcomG7.CertificateInfoRx(decoding: [UInt8](hex: "0B 00 02 0000")).sensorCertificateLength == nil)
    }

    @Test func keyChallenge() throws {
        let ack = try DexcomG7.KeyChallengeRx(decoding: [0x0C, 0x00] + Array(0..<16))
        #expect(ack.status == 0)
        #expect(ack.challenge == Array(0..<16))
        #expect(throws: WireError.self) { try DexcomG7.KeyChallengeRx(decoding: [0x0C, 0x00] + Array(0..<15)) }
    }

    @Test func displayTypes() {
        #expect(DexcomG7.DisplayType(name: "receiver") == .receiver)
        #expect(DexcomG7.DisplayType(name: "tablet") == nil)
        #expect(DexcomG7.DisplayType.phone.rawValue == 2)
    }
}
