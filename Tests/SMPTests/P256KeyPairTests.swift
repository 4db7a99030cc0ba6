import Testing
import Wire
@testable import SMP

/// The SMP debug key pair (Core v5.4 Vol 3 Part H §2.3.5.6.1) and the second sample key pair
/// of the spec's P-256 sample data; public keys and DHKey recomputed with Python
/// `cryptography` 48 (`ec.derive_private_key`, `ECDH`).
struct P256KeyPairTests {
    static let debugX = spec("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")
    static let debugY = spec("dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b")
    static let privateB = [UInt8](hex: "55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")
    static let publicBX = spec("1ea1f0f01faf1d9609592284f19e4c0047b58afd8615a69f559077b22faaa190")
    static let publicBY = spec("4c55f33e429dad377356703a9ab85160472d1130e28e36765f89aff915b1214a")
    static let dhKey = spec("ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698")

    @Test func debugKeyPairHasTheSpecPublicKeyWhoseXIsF4sU() throws {
        let pair = try #require(SMP.P256KeyPair(privateKey: SMP.P256KeyPair.debugPrivateKey))
        #expect(pair.publicKey.x == Self.debugX)
        #expect(pair.publicKey.x == CryptoTests.u)
        #expect(pair.publicKey.y == Self.debugY)
        // On the wire: code 0x0C, X LSB-first (…e6 first), then Y (…8b first).
        let pdu = pair.publicKey.encoded
        #expect(pdu.count == 65)
        #expect(pdu[0] == 0x0C && pdu[1] == 0xE6 && pdu[32] == 0x20 && pdu[33] == 0x8B && pdu[64] == 0xDC)
    }

    @Test func bothSidesDeriveTheSampleDHKeyWhichIsF5sW() throws {
        let a = try #require(SMP.P256KeyPair(privateKey: SMP.P256KeyPair.debugPrivateKey))
        let b = try #require(SMP.P256KeyPair(privateKey: Self.privateB))
        #expect(b.publicKey == SMP.PairingPublicKey(x: Self.publicBX, y: Self.publicBY))
        #expect(try a.dhKey(with: b.publicKey) == Self.dhKey)
        #expect(try b.dhKey(with: a.publicKey) == Self.dhKey)
    }

    @Test func aPointOffTheCurveFailsWithDHKeyCheckFailed() throws {
        let a = try #require(SMP.P256KeyPair(privateKey: SMP.P256KeyPair.debugPrivateKey))
        var y = Self.publicBY
        y[0] ^= 0x01  // y² ≠ x³ − 3x + b any more
        #expect(throws: SMP.PairingFailed.Reason.dhKeyCheckFailed) {
            try a.dhKey(with: SMP.PairingPublicKey(x: Self.publicBX, y: y))
        }
        #expect(throws: SMP.PairingFailed.Reason.dhKeyCheckFailed) {
            try a.dhKey(with: SMP.PairingPublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32)))
        }
    }

    @Test func ourOwnKeyReflectedBackIsRefused() throws {
        let a = try #require(SMP.P256KeyPair(privateKey: SMP.P256KeyPair.debugPrivateKey))
        #expect(throws: SMP.PairingFailed.Reason.authenticationRequirements) { try a.dhKey(with: a.publicKey) }
    }

    @Test func invalidPrivateKeysAreRejected() {
        #expect(SMP.P256KeyPair(privateKey: [UInt8](repeating: 0, count: 32)) == nil)  // zero
        #expect(SMP.P256KeyPair(privateKey: [UInt8](repeating: 0xFF, count: 32)) == nil)  // ≥ n
        #expect(SMP.P256KeyPair(privateKey: [1, 2, 3]) == nil)
    }

    @Test func generationUsesTheRandomSourceAndGivesUpOnAUselessOne() throws {
        var seeded = SeededRandom(seed: 7)
        var again = SeededRandom(seed: 7)
        let first = try #require(SMP.P256KeyPair.generate(using: &seeded))
        let second = try #require(SMP.P256KeyPair.generate(using: &again))
        #expect(first == second)
        var other = SeededRandom(seed: 8)
        #expect(SMP.P256KeyPair.generate(using: &other) != first)
        var zeros = ConstantRandom(byte: 0)
        #expect(SMP.P256KeyPair.generate(using: &zeros) == nil)
    }
}
