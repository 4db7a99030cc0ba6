#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Platform
import TLS
import Testing

/// A session driven the way the socket owner drives it, over a real loopback socket, against
/// Python's `ssl` client: the handshake, data both ways, the version floor, a peer that
/// sends garbage.
@Suite struct ServerSessionTests {
    /// The client: connects, checks the certificate against the test's CA (the certificate
    /// itself), sends a line, prints what comes back. `maximum` forces a protocol version.
    static func client(port: UInt16, caFile: String, minimum: String = "TLSv1_2", maximum: String = "MAXIMUM_SUPPORTED") -> String {
        """
        import socket, ssl, sys
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations("\(caFile)")
        try:
            ctx.set_ciphers("ALL:@SECLEVEL=0")
            ctx.minimum_version = ssl.TLSVersion.\(minimum)
            ctx.maximum_version = ssl.TLSVersion.\(maximum)
        except Exception as error:
            print("CANNOT", error); sys.exit(3)
        with socket.create_connection(("127.0.0.1", \(port)), timeout=10) as raw:
            try:
                with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                    tls.sendall(b"hello over tls\\n" * 2000)
                    data = b""
                    while not data.endswith(b"END"):
                        chunk = tls.recv(65536)
                        if not chunk: break
                        data += chunk
                    print(tls.version(), len(data))
            except ssl.SSLError as error:
                print("REFUSED", error.reason); sys.exit(2)
        """
    }

    /// What the server saw: the plaintext received, the failure if any, the client's output.
    struct Exchange {
        var received: [UInt8] = []
        var failure: TLS.Failure?
        var handshakeCompleted = false
        var clientOutput = ""
        var clientStatus: Int32 = -1
    }

    /// Runs the client against one session until the client exits (cap: 20 s), answering the
    /// client's 30,000 bytes with `answer` once they have all arrived.
    func exchange(context: TLS.ServerContext, files: TLSTestFiles, minimum: String = "TLSv1_2", maximum: String = "MAXIMUM_SUPPORTED",
                  answer: [UInt8]) throws -> Exchange {
        let listener = try TCPListener.listen()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.client(port: listener.port, caFile: files.certificate.path, minimum: minimum, maximum: maximum)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var exchange = Exchange()
        let session = try #require(TLS.ServerSession(context: context))
        let deadline = ContinuousClock.now + .seconds(20)
        var client: (any ByteTransport)?
        var outgoing: [UInt8] = []
        var answered = false
        while process.isRunning, ContinuousClock.now < deadline {
            guard let socket = client else {
                var entry = pollfd(fd: listener.fileDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, 100)
                client = try listener.accept()
                continue
            }
            var entry = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN | (outgoing.isEmpty ? 0 : POLLOUT)), revents: 0)
            _ = poll(&entry, 1, 100)
            var buffer: [UInt8] = []
            if try Self.read(socket, into: &buffer) == 0 { break }
            session.receiveCiphertext(buffer[...])
            while case let plaintext = session.readPlaintext(maximum: 4096), !plaintext.isEmpty { exchange.received += plaintext }
            if exchange.received.count == 30_000, !answered {
                var rest = answer[...]
                while !rest.isEmpty {
                    let taken = session.writePlaintext(rest)
                    #expect(taken > 0)
                    rest = rest.dropFirst(taken)
                    outgoing += session.takeCiphertext()
                }
                answered = true
            }
            outgoing += session.takeCiphertext()
            if !outgoing.isEmpty { outgoing.removeFirst(try StreamSocket.send(socket.fileDescriptor, outgoing[...])) }
            if session.failure != nil {
                outgoing += session.takeCiphertext()  // the alert
                _ = try? StreamSocket.send(socket.fileDescriptor, outgoing[...])
                break
            }
        }
        exchange.failure = session.failure
        exchange.handshakeCompleted = session.isHandshakeComplete
        client?.close()
        listener.close()
        process.waitUntilExit()
        exchange.clientStatus = process.terminationStatus
        exchange.clientOutput = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return exchange
    }

    /// What a non-blocking read gave: 0 at the end, -1 when nothing is there yet.
    static func read(_ socket: any ByteTransport, into buffer: inout [UInt8]) throws(PlatformError) -> Int {
        do {
            return try socket.read(into: &buffer, maxCount: 16 * 1024)
        } catch {
            if error.isWouldBlock { return -1 }
            throw error
        }
    }

    @Test(arguments: ["TLSv1_2", "TLSv1_3"])
    func aClientOfEitherVersionExchangesDataBothWays(version: String) throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: files.keyPEM)
        let answer = Array(repeating: UInt8(ascii: "x"), count: 100_000) + Array("END".utf8)
        let result = try exchange(context: context, files: files, minimum: version, maximum: version, answer: answer)
        #expect(result.failure == nil)
        #expect(result.handshakeCompleted)
        #expect(result.received == Array(String(repeating: "hello over tls\n", count: 2000).utf8))
        let expectedName = version == "TLSv1_2" ? "TLSv1.2" : "TLSv1.3"
        #expect(result.clientOutput == "\(expectedName) \(answer.count)\n", "client said: \(result.clientOutput)")
        #expect(result.clientStatus == 0)
    }

    /// TLS 1.1 and older are refused in the handshake: the session fails, the client is told.
    @Test func tls11IsRefused() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: files.keyPEM)
        let result = try exchange(context: context, files: files, minimum: "TLSv1", maximum: "TLSv1_1", answer: [])
        #expect(!result.handshakeCompleted)
        if result.clientStatus == 3 || result.clientOutput.contains("NO_PROTOCOLS") {
            // This Python's OpenSSL will not even offer TLS 1.1: nothing reached the server.
            #expect(result.failure == nil)
        } else {
            #expect(result.failure != nil, "client said: \(result.clientOutput)")
            #expect(result.clientStatus == 2, "client said: \(result.clientOutput)")
        }
    }

    /// Bytes that are not TLS fail the session at once, with a reason and no plaintext.
    @Test func garbageFailsTheSession() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: files.keyPEM)
        let session = try #require(TLS.ServerSession(context: context))
        session.receiveCiphertext(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...])
        #expect(session.failure != nil)
        #expect(!session.isHandshakeComplete)
        #expect(session.readPlaintext(maximum: 100).isEmpty)
        #expect(session.writePlaintext(Array("no".utf8)[...]) == 0)
    }

    /// Before any byte arrives nothing is decrypted and nothing is written.
    @Test func nothingHappensBeforeTheClientSpeaks() throws {
        let files = try TLSTestFiles()
        defer { files.remove() }
        let context = try TLS.ServerContext(certificatePEM: files.certificatePEM, keyPEM: files.keyPEM)
        let session = try #require(TLS.ServerSession(context: context))
        #expect(session.readPlaintext(maximum: 100).isEmpty)
        #expect(session.failure == nil && !session.isHandshakeComplete)
        #expect(session.writePlaintext(Array("early".utf8)[...]) == 0)
        #expect(session.takeCiphertext().isEmpty)
        #expect(session.bufferedCiphertext == 0)
    }
}
