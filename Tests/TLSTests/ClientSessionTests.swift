import Foundation
import TLS
import Testing

/// A client session against a server session, both in memory: the bytes each produces are
/// handed to the other until neither has more. The server is libssl too, but it is configured
/// only as the page's server is: the checks under test are all the client's.
@Suite struct ClientSessionTests {
    /// Moves ciphertext both ways until it stops, then says whether the client finished.
    @discardableResult
    static func shuttle(_ client: TLS.ClientSession, _ server: TLS.ServerSession) -> Bool {
        for _ in 0..<50 {
            let toServer = client.takeCiphertext()
            let toClient = server.takeCiphertext()
            if toServer.isEmpty && toClient.isEmpty { break }
            server.receiveCiphertext(toServer[...])
            _ = server.readPlaintext(maximum: 1)  // runs the server's handshake
            client.receiveCiphertext(toClient[...])
        }
        return client.isHandshakeComplete
    }

    struct Setup {
        var files: TLSTestFiles
        var authority: TestAuthority
        var client: TLS.ClientContext

        init() throws {
            files = try TLSTestFiles()
            authority = try TestAuthority(in: files.directory, name: "trusted")
            client = try TLS.ClientContext(authoritiesPEM: authority.certificatePEM)
        }

        func server(_ leaf: TestAuthority.Leaf) throws -> TLS.ServerSession {
            try #require(TLS.ServerSession(context: TLS.ServerContext(certificatePEM: leaf.chainPEM, keyPEM: leaf.keyPEM)))
        }
    }

    @Test func aGoodChainCompletesAndCarriesDataBothWays() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let server = try setup.server(setup.authority.issue("good", names: ["DNS:vigil.test"]))
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        #expect(client.pendingCiphertext > 0, "the ClientHello is ready at once")
        #expect(Self.shuttle(client, server))
        #expect(client.failure == nil)

        let request = Array("GET / HTTP/1.1\r\nHost: vigil.test\r\n\r\n".utf8)
        #expect(client.writePlaintext(request[...]) == request.count)
        server.receiveCiphertext(client.takeCiphertext()[...])
        #expect(server.readPlaintext(maximum: 4096) == request)

        let answer = Array(repeating: UInt8(ascii: "a"), count: 40_000)
        var rest = answer[...]
        while !rest.isEmpty { rest = rest.dropFirst(server.writePlaintext(rest)) }
        client.receiveCiphertext(server.takeCiphertext()[...])
        var received: [UInt8] = []
        while case let piece = client.readPlaintext(maximum: 5000), !piece.isEmpty { received += piece }
        #expect(received == answer)

        server.close()
        client.receiveCiphertext(server.takeCiphertext()[...])
        #expect(client.readPlaintext(maximum: 10).isEmpty)
        #expect(client.peerClosed)
        client.close()
        #expect(client.pendingCiphertext > 0, "the client's close_notify")
    }

    /// An intermediate between the server and the trusted authority, sent by the server.
    @Test func aChainThroughAnIntermediateVerifies() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let intermediate = try TestAuthority(intermediateOf: setup.authority, name: "intermediate")
        var leaf = try intermediate.issue("leaf", names: ["DNS:vigil.test"])
        leaf.chainPEM += try intermediate.certificatePEM
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        #expect(Self.shuttle(client, try setup.server(leaf)))
    }

    @Test func anUnknownAuthorityFailsTheHandshake() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let stranger = try TestAuthority(in: setup.files.directory, name: "stranger")
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        #expect(!Self.shuttle(client, try setup.server(stranger.issue("leaf", names: ["DNS:vigil.test"]))))
        #expect(client.failure?.description == "certificate verify failed: unable to get local issuer certificate")
        #expect(client.writePlaintext(Array("secret".utf8)[...]) == 0)
    }

    /// A self-signed server certificate (the page's own, for instance) is not trusted either.
    @Test func aSelfSignedCertificateFails() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let server = try #require(TLS.ServerSession(context: TLS.ServerContext(certificatePEM: setup.files.certificatePEM, keyPEM: setup.files.keyPEM)))
        let client = try TLS.ClientSession(context: setup.client, serverName: "localhost")
        #expect(!Self.shuttle(client, server))
        #expect(client.failure?.description == "certificate verify failed: self-signed certificate")
    }

    @Test(arguments: ["other.test", "sub.vigil.test", "vigil.tes", "127.0.0.1"])
    func aWrongNameFails(serverName: String) throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let server = try setup.server(setup.authority.issue("leaf", names: ["DNS:vigil.test"]))
        let client = try TLS.ClientSession(context: setup.client, serverName: serverName)
        #expect(!Self.shuttle(client, server))
        let expected = serverName.first!.isNumber ? "IP address mismatch" : "hostname mismatch"
        #expect(client.failure?.description == "certificate verify failed: \(expected)")
    }

    /// An address is checked against the certificate's IP entries (and not sent as SNI).
    @Test func anIPAddressIsCheckedAgainstIPEntries() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let leaf = try setup.authority.issue("leaf", names: ["IP:127.0.0.1", "IP:::1"])
        for name in ["127.0.0.1", "::1"] {
            let client = try TLS.ClientSession(context: setup.client, serverName: name)
            #expect(Self.shuttle(client, try setup.server(leaf)), "\(name): \(client.failure?.description ?? "")")
        }
        let wrong = try TLS.ClientSession(context: setup.client, serverName: "127.0.0.2")
        #expect(!Self.shuttle(wrong, try setup.server(leaf)))
        #expect(wrong.failure?.description == "certificate verify failed: IP address mismatch")
    }

    @Test func aWildcardCoversOneLabel() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let leaf = try setup.authority.issue("leaf", names: ["DNS:*.vigil.test"])
        let good = try TLS.ClientSession(context: setup.client, serverName: "eu.vigil.test")
        #expect(Self.shuttle(good, try setup.server(leaf)))
        let deeper = try TLS.ClientSession(context: setup.client, serverName: "a.eu.vigil.test")
        #expect(!Self.shuttle(deeper, try setup.server(leaf)))
    }

    @Test func anExpiredCertificateFails() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let leaf = try setup.authority.issue("old", names: ["DNS:vigil.test"], start: "20200101000000Z", end: "20200201000000Z")
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        #expect(!Self.shuttle(client, try setup.server(leaf)))
        #expect(client.failure?.description == "certificate verify failed: certificate has expired")
    }

    @Test func aCertificateNotYetValidFails() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let leaf = try setup.authority.issue("early", names: ["DNS:vigil.test"], start: "20990101000000Z", end: "20990201000000Z")
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        #expect(!Self.shuttle(client, try setup.server(leaf)))
        #expect(client.failure?.description == "certificate verify failed: certificate is not yet valid")
    }

    @Test func anEmptyOrNULNameIsRefused() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        #expect { try TLS.ClientSession(context: setup.client, serverName: "") } throws: { "\($0)".contains("no server name") }
        #expect { try TLS.ClientSession(context: setup.client, serverName: "a\u{0}b") } throws: { "\($0)".contains("NUL") }
    }

    /// Bytes that are not TLS (a plain HTTP server's answer) fail the session with a reason.
    @Test func aServerThatDoesNotSpeakTLSFails() throws {
        let setup = try Setup()
        defer { setup.files.remove() }
        let client = try TLS.ClientSession(context: setup.client, serverName: "vigil.test")
        _ = client.takeCiphertext()
        client.receiveCiphertext(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)[...])
        #expect(client.failure != nil)
        #expect(!client.isHandshakeComplete)
        #expect(client.readPlaintext(maximum: 10).isEmpty)
    }
}
