import CLibCrypto
import Wire

extension DexcomG7 {
    /// NIST P-256 arithmetic on arbitrary points and scalars mod the group order, through
    /// OpenSSL's libcrypto (Sources/CLibCrypto; docs/crypto.md says why not swift-crypto). Points
    /// are 64 bytes, x ‖ y big-endian, as in a J-PAKE packet (docs/protocols/dexcom-g7.md §EC
    /// J-PAKE on P-256); scalars are 32 bytes big-endian. The point at infinity has no such form:
    /// an operation that lands there throws `.degenerateExchange`.
    enum P256 {
        /// The generator G (SEC 2 v2 §2.4.2, "secp256r1"; FIPS 186-4 §D.1.2.3).
        static let generator = [UInt8](
            hex: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
                + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")

        /// n, the order of G (SEC 2 v2 §2.4.2).
        static let order = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

        static func isOnCurve(_ point: [UInt8]) -> Bool {
            point.count == 64 && vigil_p256_point_check(point) == VIGIL_CRYPTO_OK
        }

        /// a + b; both on the curve (the caller checked, or made them).
        static func add(_ a: [UInt8], _ b: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(a.count == 64 && b.count == 64, "P-256 points are 64 bytes")
            return try output(64) { vigil_p256_point_add(a, b, $0) }
        }

        /// k·point.
        static func multiply(_ point: [UInt8], by k: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(point.count == 64 && k.count == 32, "a 64-byte point and a 32-byte scalar")
            return try output(64) { vigil_p256_point_mul(point, k, $0) }
        }

        /// k·G.
        static func multiplyGenerator(by k: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(k.count == 32, "P-256 scalars are 32 bytes")
            return try output(64) { vigil_p256_base_mul(k, $0) }
        }

        /// a·b mod n.
        static func multiplyScalars(_ a: [UInt8], _ b: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(a.count == 32 && b.count == 32, "P-256 scalars are 32 bytes")
            return try output(32) { vigil_p256_scalar_mul(a, b, $0) }
        }

        /// a − b mod n.
        static func subtractScalars(_ a: [UInt8], _ b: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(a.count == 32 && b.count == 32, "P-256 scalars are 32 bytes")
            return try output(32) { vigil_p256_scalar_sub(a, b, $0) }
        }

        /// A SHA-256 digest read as a big-endian integer, mod n.
        static func reduce(digest: [UInt8]) throws(CryptoError) -> [UInt8] {
            precondition(digest.count == 32, "a SHA-256 digest is 32 bytes")
            return try output(32) { vigil_p256_scalar_reduce(digest, $0) }
        }

        /// Whether a 32-byte big-endian integer lies in [1, n − 2], the range J-PAKE draws its
        /// private keys from (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256).
        static func isPrivateKeyInRange(_ k: [UInt8]) -> Bool {
            guard k.count == 32, k.contains(where: { $0 != 0 }) else { return false }
            var nMinus1 = order
            nMinus1[31] -= 1  // n ends in 0x51: no borrow
            return k.lexicographicallyPrecedes(nMinus1)
        }

        private static func output(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int32) throws(CryptoError) -> [UInt8] {
            var result = [UInt8](repeating: 0, count: count)
            let status = result.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
            switch status {
            case VIGIL_CRYPTO_OK: return result
            case VIGIL_CRYPTO_INFINITY: throw .degenerateExchange
            // Inputs are checked before they get here: a point off the curve is a broken caller.
            case VIGIL_CRYPTO_NOT_ON_CURVE: preconditionFailure("a P-256 operation got a point off the curve")
            default: throw .library("P-256 arithmetic failed (status \(status))")
            }
        }
    }
}
