import Foundation
import TLS
import Testing

/// The authorities are read when the context is made: a bundle with none, or a damaged one,
/// is refused with a sentence.
@Suite struct ClientContextTests {
    @Test func aBundleOfAuthoritiesIsCounted() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let first = try TestAuthority(in: files.directory, name: "first")
        let second = try TestAuthority(in: files.directory, name: "second")
        let context = try TLS.ClientContext(authoritiesPEM: first.certificatePEM + Array("\n".utf8) + second.certificatePEM)
        #expect(context.authorityCount == 2)
    }

    /// Other PEM blocks (a key someone appended) are not authorities and are passed over.
    @Test func otherPEMBlocksAreSkipped() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ClientContext(authoritiesPEM: files.keyPEM + files.certificatePEM)
        #expect(context.authorityCount == 1)
    }

    @Test func aBundleWithoutCertificatesIsRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        for bundle in [[], Array("not a certificate".utf8), try files.keyPEM] {
            #expect { try TLS.ClientContext(authoritiesPEM: bundle) } throws: { "\($0)".contains("no PEM certificate") }
        }
    }

    @Test func aDamagedCertificateIsRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        var text = String(decoding: try files.certificatePEM, as: UTF8.self)
        let body = try #require(text.range(of: "\n", range: text.range(of: "-----BEGIN CERTIFICATE-----")!.upperBound..<text.endIndex))
        text.insert(contentsOf: "!!!!", at: body.upperBound)
        #expect { try TLS.ClientContext(authoritiesPEM: Array(text.utf8)) } throws: { "\($0)".contains("damaged") }
    }

    /// The system's bundle, where Debian's ca-certificates puts it (skipped where it is absent).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: TLS.ClientContext.systemAuthoritiesPath)))
    func theSystemBundleLoads() throws {
        let bundle = try Array(Data(contentsOf: URL(fileURLWithPath: TLS.ClientContext.systemAuthoritiesPath)))
        let context = try TLS.ClientContext(authoritiesPEM: bundle)
        #expect(context.authorityCount > 50)
    }
}
