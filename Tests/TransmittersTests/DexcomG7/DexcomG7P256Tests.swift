import Crypto
import Testing
import Wire
@testable import Transmitters

/// P-256 through OpenSSL against published points and against swift-crypto (BoringSSL), an
/// implementation of its own.
struct DexcomG7P256Tests {
    typealias P256 = DexcomG7.P256

    // 2G and 3G as published for P-256 (the NIST-curve test vectors at
    // point-at-infinity.org/ecc/nisttv, k = 2 and k = 3).
    static let twoG = [UInt8](
        hex: "7CF27B188D034F7E8A52380304B51AC3C08969E277F21B35A60B48FC47669978"
            + "07775510DB8ED040293D9AC69F7430DBBA7DADE63CE982299E04B79D227873D1")
    static let threeG = [UInt8](
        hex: "5ECBE4D1A6330A44C8F7EF951D4BF165E6C6B721EFADA985FB41661BC6E7FD6C"
            + "8734640C4998FF7E374B06CE1A64A2ECD82AB036384FB83D9A79B127A27D5032")

    static func scalar(_ value: UInt8) -> [UInt8] { [UInt8](repeating: 0, count: 31) + [value] }

    @Test func publishedMultiplesOfG() throws {
        let g = P256.generator
        #expect(try P256.multiplyGenerator(by: Self.scalar(2)) == Self.twoG)
        #expect(try P256.multiplyGenerator(by: Self.scalar(3)) == Self.threeG)
        #expect(try P256.multiply(g, by: Self.scalar(3)) == Self.threeG)
        #expect(try P256.multiply(Self.twoG, by: Self.scalar(1)) == Self.twoG)
        #expect(try P256.add(g, g) == Self.twoG)
        #expect(try P256.add(g, Self.twoG) == Self.threeG)
        #expect(try P256.add(Self.twoG, g) == Self.threeG)
    }

    /// swift-crypto derives a public key from a raw private key with BoringSSL's own code.
    @Test(arguments: [
        "0000000000000000000000000000000000000000000000000000000000000001",
        "00000000000000000000000000000000000000000000000000000000deadbeef",
        "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550",  // n − 1: −G
        "7fffffff80000000800000000000000000000000000000000000000000000000",
    ])
    func multiplyingGAgreesWithSwiftCrypto(hex: String) throws {
        let k = [UInt8](hex: hex)
        let expected = try Array(Crypto.P256.Signing.PrivateKey(rawRepresentation: k).publicKey.rawRepresentation)
        #expect(try P256.multiplyGenerator(by: k) == expected)
        #expect(try P256.multiply(P256.generator, by: k) == expected)
    }

    /// k·(j·G) = (k·j)·G on an arbitrary point, checked against swift-crypto's (k·j mod n)·G.
    @Test func multiplyingAnArbitraryPointAgreesWithSwiftCrypto() throws {
        let j = [UInt8](hex: "3b2d9f8c6a1e4f50718293a4b5c6d7e8f90112233445566778899aabbccddeef")
        let k = [UInt8](hex: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9")
        let jG = try Array(Crypto.P256.Signing.PrivateKey(rawRepresentation: j).publicKey.rawRepresentation)
        let kj = try P256.multiplyScalars(k, j)
        let expected = try Array(Crypto.P256.Signing.PrivateKey(rawRepresentation: kj).publicKey.rawRepresentation)
        #expect(try P256.multiply(jG, by: k) == expected)
    }

    @Test func pointsOffTheCurveAreRefused() {
        #expect(P256.isOnCurve(P256.generator))
        #expect(P256.isOnCurve(Self.twoG))
        var moved = Self.twoG
        moved[63] ^= 1
        #expect(!P256.isOnCurve(moved))
        #expect(!P256.isOnCurve([UInt8](repeating: 0, count: 64)))
        #expect(!P256.isOnCurve([UInt8](repeating: 0xFF, count: 64)))  // coordinates above the prime
        #expect(!P256.isOnCurve(Array(Self.twoG.prefix(63))))
    }

    @Test func resultsAtInfinityThrow() throws {
        #expect(throws: DexcomG7.CryptoError.degenerateExchange) { try P256.multiplyGenerator(by: P256.order) }
        #expect(throws: DexcomG7.CryptoError.degenerateExchange) { try P256.multiplyGenerator(by: Self.scalar(0)) }
        let minusG = try P256.multiplyGenerator(by: P256.subtractScalars(Self.scalar(0), Self.scalar(1)))
        #expect(throws: DexcomG7.CryptoError.degenerateExchange) { try P256.add(P256.generator, minusG) }
    }

    @Test func scalarArithmeticModN() throws {
        let nMinus1 = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550")
        #expect(try P256.subtractScalars(Self.scalar(0), Self.scalar(1)) == nMinus1)
        #expect(try P256.subtractScalars(Self.scalar(5), Self.scalar(3)) == Self.scalar(2))
        #expect(try P256.multiplyScalars(nMinus1, nMinus1) == Self.scalar(1))  // (−1)² = 1
        #expect(try P256.multiplyScalars(Self.scalar(6), Self.scalar(7)) == Self.scalar(42))
        #expect(try P256.reduce(digest: P256.order) == Self.scalar(0))
        // 2^256 − 1 = n + (2^256 − 1 − n), and 2^256 − 1 − n = 0x00000000ffffffff00000000000000004319055258e8617b0c46353d039cdaae
        #expect(
            try P256.reduce(digest: [UInt8](repeating: 0xFF, count: 32))
                == [UInt8](hex: "00000000ffffffff00000000000000004319055258e8617b0c46353d039cdaae"))
    }

    @Test func privateKeyRange() {
        let nMinus1 = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550")
        let nMinus2 = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254f")
        #expect(!P256.isPrivateKeyInRange(Self.scalar(0)))
        #expect(P256.isPrivateKeyInRange(Self.scalar(1)))
        #expect(P256.isPrivateKeyInRange(nMinus2))
        #expect(!P256.isPrivateKeyInRange(nMinus1))
        #expect(!P256.isPrivateKeyInRange(P256.order))
        #expect(!P256.isPrivateKeyInRange([UInt8](repeating: 0xFF, count: 32)))
    }
}
