import Clocks
import Glibc
import Testing
@testable import Platform

/// Whether this machine has an IPv6 loopback to listen on.
private let hasIPv6Loopback: Bool = (try? TCPListener.listen(host: "::1")) != nil

@Suite struct TCPConnectionTests {
    /// 200 KB out and back through an echo server, everything driven by one PollLoop, the way
    /// the executable drives the HCI transport: partial reads on both sides are reassembled.
    @Test func loopbackEchoThroughPollLoop() throws {
        let listener = try TCPListener.listen(host: "127.0.0.1", port: 0)
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let message = pattern(200_000)
        var server: (any ByteTransport)?
        var loop = PollLoop()
        loop.register(listener.fileDescriptor)
        loop.register(client.fileDescriptor)
        var sent = 0
        var echoed: [UInt8] = []
        var buffer: [UInt8] = []
        let deadline = SystemClock.monotonicNow() + .seconds(10)
        while echoed.count < message.count {
            // Send in slices between reads so neither side's socket buffer fills up.
            if sent < message.count {
                let slice = Array(message[sent..<min(sent + 8192, message.count)])
                try client.write(slice)
                sent += slice.count
            }
            let events = try loop.wait(until: sent < message.count ? SystemClock.monotonicNow() : deadline)
            if events.isEmpty && SystemClock.monotonicNow() >= deadline { Issue.record("timed out at \(echoed.count) bytes"); return }
            for event in events {
                if event.fileDescriptor == listener.fileDescriptor, let accepted = try listener.accept() {
                    server = accepted
                    loop.register(accepted.fileDescriptor)
                } else if let server, event.fileDescriptor == server.fileDescriptor {
                    if try server.read(into: &buffer, maxCount: 3000) > 0 { try server.write(buffer) }
                } else if event.fileDescriptor == client.fileDescriptor {
                    let n = try client.read(into: &buffer, maxCount: 5000)
                    #expect(n > 0, "the echo server closed early")
                    if n == 0 { return }
                    echoed += buffer
                }
            }
        }
        #expect(echoed == message)
        client.close()
        server?.close()
    }

    @Test func connectedSocketIsNonBlockingWithNoDelay() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let fd = client.fileDescriptor
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length) == 0)
        #expect(noDelay == 1)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func refusedConnectionSaysNothingIsListening() throws {
        let listener = try TCPListener.listen()
        let port = listener.port
        listener.close()  // the port is now (almost certainly) free: connecting is refused
        do {
            _ = try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(2))
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.errno == ECONNREFUSED)
            #expect(error.operation == "connect(127.0.0.1:\(port) at 127.0.0.1:\(port))")
            #expect(error.hint == "nothing is listening on 127.0.0.1:\(port): is the peer (e.g. Bumble's tcp-server transport) running?")
        }
    }

    /// A listener whose accept queue is full drops new SYNs (Linux, tcp_abort_on_overflow = 0),
    /// so connect never completes: the timeout must end it, not hang.
    @Test func unansweredConnectTimesOut() throws {
        let listener = try TCPListener.listen(backlog: 0)
        var held: [any ByteTransport] = []
        // Fill the accept queue; connects beyond it may already time out, which is the point.
        for _ in 0..<4 {
            if let connection = try? TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(200)) {
                held.append(connection)
            }
        }
        let start = SystemClock.monotonicNow()
        do {
            let extra = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(300))
            extra.close()
            Issue.record("connected past a full accept queue (held \(held.count))")
        } catch {
            let elapsed = SystemClock.monotonicNow() - start
            #expect(error.errno == ETIMEDOUT)
            #expect(error.hint == "127.0.0.1:\(listener.port) did not answer within 0.3 seconds")
            #expect(elapsed >= .milliseconds(300))
            #expect(elapsed < .seconds(2))
        }
        held.forEach { $0.close() }
    }

    @Test func hostNameIsResolved() throws {
        let listener = try TCPListener.listen(host: "127.0.0.1")
        let client = try TCPConnection.connect(host: "localhost", port: listener.port, timeout: .seconds(2))
        try client.write([0x01, 0x03, 0x0C, 0x00])  // an HCI Reset, for flavour
        let server = try #require(try acceptWithin(listener))
        #expect(try receive(4, from: server) == [0x01, 0x03, 0x0C, 0x00])
    }

    @Test(.enabled(if: hasIPv6Loopback, "no IPv6 loopback (::1) on this machine"))
    func numericIPv6Connects() throws {
        let listener = try TCPListener.listen(host: "::1")
        #expect(listener.name == "[::1]:\(listener.port)")
        let client = try TCPConnection.connect(host: "::1", port: listener.port, timeout: .seconds(2))
        let server = try #require(try acceptWithin(listener))
        try server.write([0x04, 0x0E])
        #expect(try receive(2, from: client) == [0x04, 0x0E])
    }

    @Test func peerCloseReadsAsEndOfStream() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let server = try #require(try acceptWithin(listener))
        try server.write([0xAA])
        server.close()
        #expect(try receive(1, from: client) == [0xAA])
        var loop = PollLoop()
        loop.register(client.fileDescriptor)
        #expect(try loop.wait(until: SystemClock.monotonicNow() + .seconds(5)).first?.isReadable == true)
        var buffer: [UInt8] = [1, 2, 3]
        #expect(try client.read(into: &buffer, maxCount: 16) == 0)
        #expect(buffer.isEmpty)
    }

    /// Writing to a peer that went away must be an error (EPIPE or ECONNRESET), not SIGPIPE
    /// ending the process: that this test finishes at all is half the assertion.
    @Test func writeToClosedPeerIsAnErrorNotSIGPIPE() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let server = try #require(try acceptWithin(listener))
        server.close()
        var failure: PlatformError?
        for _ in 0..<50 where failure == nil {
            do { try client.write(pattern(1000)) } catch { failure = error }
            usleep(2000)
        }
        let error = try #require(failure)
        #expect(error.errno == EPIPE || error.errno == ECONNRESET)
        #expect(error.hint == "the peer closed the connection" || error.hint == "the peer reset the connection")
    }

    /// A peer that stops reading: the write must give up after writeTimeout instead of hanging.
    @Test func writeToAPeerThatDoesNotReadTimesOut() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let server = try #require(try acceptWithin(listener))
        let transport = try #require(client as? FileDescriptorTransport)
        transport.writeTimeout = .milliseconds(200)
        let start = SystemClock.monotonicNow()
        do {
            // Far more than loopback socket buffers hold.
            try client.write([UInt8](repeating: 0x5A, count: 64 << 20))
            Issue.record("64 MiB went into a socket nobody reads")
        } catch {
            #expect(error.errno == ETIMEDOUT)
            #expect(error.operation == "write(tcp 127.0.0.1:\(listener.port))")
            #expect(error.hint == "the other end is not reading")
            #expect(error.reason.hasPrefix("only "))
        }
        let elapsed = SystemClock.monotonicNow() - start
        #expect(elapsed >= .milliseconds(200))
        #expect(elapsed < .seconds(3))
        server.close()
    }

    @Test func readWithNothingPendingIsWouldBlockNotEndOfStream() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(2))
        let server = try #require(try acceptWithin(listener))
        var buffer: [UInt8] = []
        #expect(throws: PlatformError.self) { try client.read(into: &buffer, maxCount: 16) }
        do { _ = try client.read(into: &buffer, maxCount: 16) } catch { #expect(error.isWouldBlock) }
        server.close()
    }

    @Test func acceptWithNothingPendingReturnsNil() throws {
        let listener = try TCPListener.listen()
        #expect(try listener.accept() == nil)
    }
}

/// Accepts the one pending connection, waiting up to 5 s for it to arrive.
func acceptWithin(_ listener: TCPListener) throws -> (any ByteTransport)? {
    var loop = PollLoop()
    loop.register(listener.fileDescriptor)
    _ = try loop.wait(until: SystemClock.monotonicNow() + .seconds(5))
    return try listener.accept()
}
