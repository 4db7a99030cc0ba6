import Crypto
import Testing
import Wire
@testable import Transmitters

/// The credentials file against the test chain of make_test_credentials.sh (test-only keys).
struct DexcomG7CredentialsTests {
    typealias F = DexcomG7CredentialFixtures
    typealias Failure = DexcomG7.CredentialsError

    static func pem(_ blocks: String...) -> [UInt8] { Array(blocks.joined(separator: "\n").utf8) }

    /// The DER inside a fixture's PEM: its base64 between the armour lines, decoded here rather
    /// than by the OpenSSL code under test.
    static func der(_ pem: String) -> [UInt8] {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return base64(body)
    }

    static func base64(_ text: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var bits = 0, value = 0
        var out: [UInt8] = []
        for char in text.utf8 where char != UInt8(ascii: "=") {
            value = value << 6 | alphabet.firstIndex(of: char)!
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(value >> bits & 0xFF))
            }
        }
        return out
    }

    @Test(arguments: [
        pem(F.intermediate, F.leaf, F.leafKeySEC1),
        pem(F.leaf, F.intermediate, F.leafKeySEC1),
        pem(F.leafKeyPKCS8, F.leaf, F.intermediate),
        pem("Display credentials, test only.", F.leaf, "between blocks", F.leafKeyPKCS8, F.intermediate, "trailing"),
        // `openssl ecparam -genkey` writes an EC PARAMETERS block before the key.
        pem("-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----", F.leafKeySEC1, F.intermediate, F.leaf),
    ])
    func readsTheChainInTheSensorsOrder(file: [UInt8]) throws {
        let credentials = try DexcomG7.Credentials(pem: file)
        #expect(credentials.certificates == [Self.der(F.intermediate), Self.der(F.leaf)])
        #expect(credentials.publicKey == [UInt8](hex: F.leafPublicKey))
    }

    @Test func signaturesVerifyWithSwiftCryptoAndTheLeafsKey() throws {
        let credentials = try DexcomG7.Credentials(pem: Self.pem(F.intermediate, F.leaf, F.leafKeySEC1))
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: [UInt8](hex: F.leafPublicKey))
        let challenge = [UInt8](hex: "00112233445566778899aabbccddeeff")
        let signature = try credentials.sign(challenge)
        #expect(signature.count == 64)
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: challenge))
        var other = challenge
        other[0] ^= 1
        #expect(!publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: other))
        // A fresh nonce each time: two signatures differ, both verify.
        let again = try credentials.sign(challenge)
        #expect(again != signature)
        #expect(publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: again), for: challenge))
    }

    @Test(arguments: [
        (pem("garbage, not a credentials file"), Failure.notPEM),
        ([UInt8](), .notPEM),
        (pem(F.leafKeySEC1), .noCertificate),
        (pem(F.leaf, F.leafKeySEC1), .onlyOneCertificate),
        (pem(F.root, F.intermediate, F.leaf, F.leafKeySEC1), .tooManyCertificates(3)),
        (pem(F.intermediate, F.leaf), .noPrivateKey),
        (pem(F.intermediate, F.leaf, F.leafKeySEC1, F.leafKeyPKCS8), .tooManyPrivateKeys(2)),
        (pem(F.intermediate, F.leaf, F.rsaKey), .keyNotP256),
        (pem(F.intermediate, F.leaf, F.p384Key), .keyNotP256),
        (pem(F.intermediate, F.leaf, F.otherLeafKey), .noCertificateMatchesKey),
        (pem(F.otherCA, F.leaf, F.leafKeySEC1), .leafNotSignedByIntermediate),
        // The root signed the intermediate, not the leaf.
        (pem(F.root, F.leaf, F.leafKeySEC1), .leafNotSignedByIntermediate),
    ] as [([UInt8], Failure)])
    func refusesWithItsOwnError(file: [UInt8], expected: Failure) {
        #expect(throws: expected) { try DexcomG7.Credentials(pem: file) }
    }

    @Test func unreadableBlocksNameTheBlockAndOpenSSLsReason() {
        let brokenBase64 = "-----BEGIN CERTIFICATE-----\n!!!!not base64!!!!\n-----END CERTIFICATE-----"
        let notACertificate = "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQ==\n-----END CERTIFICATE-----"
        let notAKey = "-----BEGIN EC PRIVATE KEY-----\nAAECAwQFBgcICQ==\n-----END EC PRIVATE KEY-----"
        for (file, label) in [
            (Self.pem(F.intermediate, brokenBase64, F.leafKeySEC1), "PEM"),
            (Self.pem(F.intermediate, F.leaf, notAKey), "EC PRIVATE KEY"),
        ] {
            do {
                _ = try DexcomG7.Credentials(pem: file)
                Issue.record("accepted an unreadable block")
            } catch {
                guard case let .unreadableBlock(found, reason) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(found == label)
                #expect(!reason.isEmpty)
            }
        }
        // A certificate block that is not a certificate: unreadable, whatever the others hold.
        #expect {
            try DexcomG7.Credentials(pem: Self.pem(notACertificate, F.leaf, F.leafKeySEC1))
        } throws: { error in
            guard case let .unreadableBlock(label, _) = error as? Failure else { return false }
            return label == "CERTIFICATE"
        }
    }

    @Test func nothingPrintsTheKey() throws {
        let credentials = try DexcomG7.Credentials(pem: Self.pem(F.intermediate, F.leaf, F.leafKeySEC1))
        // SEC 1: 30 77 02 01 01 04 20, then the 32-byte scalar.
        let scalarHex = Hex.encode(Self.der(F.leafKeySEC1)[7..<39])
        for text in [String(describing: credentials), String(reflecting: credentials)] {
            #expect(text.contains("redacted"))
            #expect(!text.contains(scalarHex))
        }
        let allErrors: [Failure] = [
            .notPEM, .noCertificate, .onlyOneCertificate, .tooManyCertificates(3), .noPrivateKey, .tooManyPrivateKeys(2),
            .keyNotP256, .noCertificateMatchesKey, .leafNotSignedByIntermediate, .unreadableBlock(label: "X", reason: "y"),
        ]
        #expect(Set(allErrors.map(\.description)).count == allErrors.count)
    }
}
