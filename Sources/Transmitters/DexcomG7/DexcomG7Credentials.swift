import CLibCrypto
import Crypto

extension DexcomG7 {
    /// The display's certificate chain and signing key, from the user's credentials file: PEM with
    /// two CERTIFICATE blocks and one EC PRIVATE KEY (SEC 1) or PRIVATE KEY (PKCS #8) block, in any
    /// order; blocks of other labels (an `openssl ecparam` "EC PARAMETERS" block) are skipped.
    /// Vigil never ships them (docs/protocols/dexcom-g7.md §Certificates, signature and bond).
    /// Its `description` shows no key.
    public struct Credentials: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// DER, in the order the sensor takes them: the intermediate (index 0), then the leaf whose
        /// public key matches the private key (index 1).
        public let certificates: [[UInt8]]
        /// The P-256 private scalar, 32 bytes big-endian.
        private let privateKey: [UInt8]
        /// Its public key, x ‖ y: the leaf's.
        let publicKey: [UInt8]

        public init(pem: [UInt8]) throws(CredentialsError) {
            var certificates: [[UInt8]] = [], keys: [(label: String, der: [UInt8])] = []
            var sawBlock = false
            for block in try Self.blocks(pem) {
                sawBlock = true
                if block.label == "CERTIFICATE" {
                    certificates.append(block.der)
                } else if block.label.hasSuffix("PRIVATE KEY") {
                    keys.append(block)
                }
            }
            guard sawBlock else { throw .notPEM }
            switch certificates.count {
            case 0: throw .noCertificate
            case 1: throw .onlyOneCertificate
            case 2: break
            default: throw .tooManyCertificates(certificates.count)
            }
            guard let key = keys.first else { throw .noPrivateKey }
            guard keys.count == 1 else { throw .tooManyPrivateKeys(keys.count) }
            guard key.label != "ENCRYPTED PRIVATE KEY" else {
                throw .unreadableBlock(label: key.label, reason: "the key is password-protected; store it unencrypted")
            }

            var scalar = [UInt8](repeating: 0, count: 32)
            let decoded = withReason { vigil_private_key_p256(key.der, key.der.count, &scalar, $0, $1) }
            switch decoded.status {
            case VIGIL_CRYPTO_OK: break
            case VIGIL_CRYPTO_NOT_P256: throw .keyNotP256
            default: throw .unreadableBlock(label: key.label, reason: decoded.reason)
            }
            guard let publicKey = try? P256.multiplyGenerator(by: scalar) else {
                throw .unreadableBlock(label: key.label, reason: "the private scalar is zero or not below the order")
            }
            var leafIndex: Int?
            for (index, certificate) in certificates.enumerated() {
                if try Self.p256PublicKey(certificate) == publicKey { leafIndex = index }
            }
            guard let leafIndex else { throw .noCertificateMatchesKey }
            let leaf = certificates[leafIndex], intermediate = certificates[1 - leafIndex]
            let verified = withReason { vigil_certificate_verify(leaf, leaf.count, intermediate, intermediate.count, $0, $1) }
            guard verified.status == VIGIL_CRYPTO_OK else { throw .leafNotSignedByIntermediate }
            self.certificates = [intermediate, leaf]
            self.privateKey = scalar
            self.publicKey = publicKey
        }

        /// ECDSA P-256 over SHA-256 of `challenge` (the 16 bytes of the sensor's 0x0C
        /// acknowledgement), raw r ‖ s, 64 bytes (G7SensorKit `G7ChallengeSigner`).
        public func sign(_ challenge: [UInt8]) throws(CryptoError) -> [UInt8] {
            let digest = Array(SHA256.hash(data: challenge))
            var signature = [UInt8](repeating: 0, count: 64)
            let signed = withReason { vigil_ecdsa_p256_sign(privateKey, digest, &signature, $0, $1) }
            guard signed.status == VIGIL_CRYPTO_OK else { throw .library(signed.reason) }
            return signature
        }

        public var description: String { "DexcomG7.Credentials(\(certificates.count) certificates, private key redacted)" }
        public var debugDescription: String { description }

        /// The certificate's public key if it is a P-256 point; nil for another kind of key.
        private static func p256PublicKey(_ der: [UInt8]) throws(CredentialsError) -> [UInt8]? {
            var point = [UInt8](repeating: 0, count: 64)
            let read = withReason { vigil_certificate_p256_public_key(der, der.count, &point, $0, $1) }
            switch read.status {
            case VIGIL_CRYPTO_OK: return point
            case VIGIL_CRYPTO_NOT_P256: return nil
            default: throw .unreadableBlock(label: "CERTIFICATE", reason: read.reason)
            }
        }

        /// Every PEM block of the file, label and decoded contents.
        private static func blocks(_ pem: [UInt8]) throws(CredentialsError) -> [(label: String, der: [UInt8])] {
            var blocks: [(label: String, der: [UInt8])] = [], offset = 0
            // A block's contents are shorter than its base64 text.
            var der = [UInt8](repeating: 0, count: pem.count)
            var label = [CChar](repeating: 0, count: 64)
            while true {
                var length = 0
                let read = withReason {
                    vigil_pem_next(pem, pem.count, &offset, &label, label.count, &der, der.count, &length, $0, $1)
                }
                switch read.status {
                case VIGIL_CRYPTO_OK:
                    blocks.append((cString(label), Array(der[0..<length])))
                case VIGIL_CRYPTO_END:
                    return blocks
                case VIGIL_CRYPTO_TOO_LONG:
                    throw .unreadableBlock(label: "PEM", reason: "a block label longer than 63 characters")
                default:
                    throw .unreadableBlock(label: "PEM", reason: read.reason)
                }
            }
        }
    }
}

/// Calls a CLibCrypto function that can state a reason (its last two arguments): its status and
/// OpenSSL's reason.
private func withReason(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (status: Int32, reason: String) {
    var buffer = [CChar](repeating: 0, count: 128)
    let status = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    return (status, cString(buffer))
}

private func cString(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
