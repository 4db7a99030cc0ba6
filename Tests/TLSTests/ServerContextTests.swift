import Foundation
import TLS
import Testing

/// The certificate and key are checked when the context is made: a wrong pair, a file that is
/// not PEM or an empty one is refused with a sentence, never half-loaded.
@Suite struct ServerContextTests {
    @Test func aMatchingPairIsAcceptedAndDescribed() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: files.keyPEM)
        #expect(context.summary.contains("CN = localhost"), "\(context.summary)")
        #expect(context.summary.contains("valid until"), "\(context.summary)")
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let other = try Array(Data(contentsOf: files.otherKey))
        #expect { try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: other) } throws: { error in
            "\(error)" == "the private key does not belong to the certificate"
        }
    }

    @Test func filesSwappedOrNotPEMAreRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let certificate = try files.certificatePEM, key = try files.keyPEM
        #expect { try TLS.ServerContext(certificatePEM: key, keyPEM: certificate) } throws: { "\($0)".contains("no PEM certificate") }
        #expect { try TLS.ServerContext(certificatePEM: certificate, keyPEM: certificate) } throws: { "\($0)".contains("no unencrypted PEM private key") }
        #expect { try TLS.ServerContext(certificatePEM: [], keyPEM: key) } throws: { "\($0)".contains("no PEM certificate") }
        #expect { try TLS.ServerContext(certificatePEM: Array("not a certificate".utf8), keyPEM: key) } throws: { "\($0)".contains("no PEM certificate") }
    }

    /// A passphrase-protected key would need someone at the daemon's terminal: refused.
    @Test func anEncryptedKeyIsRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let encrypted = files.directory.appendingPathComponent("encrypted.pem")
        try TLSTestFiles.openssl(["pkey", "-in", files.key.path, "-aes256", "-passout", "pass:secret", "-out", encrypted.path])
        #expect { try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: Array(Data(contentsOf: encrypted))) } throws: {
            "\($0)".contains("no unencrypted PEM private key")
        }
    }
}
