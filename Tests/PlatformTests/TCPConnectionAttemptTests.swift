import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct TCPConnectionAttemptTests {
    /// Waits for the attempt's descriptor the way the event loop does.
    private func waitUntilEnded(_ attempt: TCPConnection.Attempt, upTo limit: Duration = .seconds(10)) -> Bool {
        var entry = pollfd(fd: attempt.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(limit.components.seconds * 1000)) == 1 && attempt.isFinished
    }

    /// Polls `fd` for input for up to five seconds.
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 5_000) == 1
    }

    private func acceptOne(_ listener: TCPListener) throws -> any ByteTransport {
        #expect(readable(listener.fileDescriptor), "no connection came to the listener")
        return try #require(try listener.accept())
    }

    /// Fills a backlog-0 listener's accept queue, so that a further connect is never answered
    /// (Linux drops the SYN while the queue is full). Returns the connections that hold it.
    private func fillAcceptQueue(of listener: TCPListener) -> [any ByteTransport] {
        (0..<4).compactMap { _ in try? TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .milliseconds(200)) }
    }

    @Test func anAttemptConnectsAndTheConnectionCarriesBytes() throws {
        let listener = try TCPListener.listen()
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        #expect(attempt.target == "127.0.0.1:\(listener.port)")
        #expect(waitUntilEnded(attempt), "the attempt's descriptor never became readable")
        let client = try attempt.finish()
        #expect((client as? FileDescriptorTransport)?.name == "tcp 127.0.0.1:\(listener.port)")
        #expect(fcntl(client.fileDescriptor, F_GETFL) & O_NONBLOCK != 0)

        let server = try acceptOne(listener)
        try client.write([0x01, 0x03, 0x0C, 0x00])
        var received: [UInt8] = []
        var buffer: [UInt8] = []
        while received.count < 4, readable(server.fileDescriptor), try server.read(into: &buffer, maxCount: 16) > 0 {
            received += buffer
        }
        #expect(received == [0x01, 0x03, 0x0C, 0x00])
        client.close()
        server.close()
    }

    /// The error is the one `connect` gives, hint included, only later.
    @Test func anAttemptToAClosedPortEndsWithConnectsError() throws {
        let listener = try TCPListener.listen()
        let port = listener.port
        listener.close()
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: port, timeout: .seconds(5))
        #expect(waitUntilEnded(attempt))
        do {
            _ = try attempt.finish()
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.errno == ECONNREFUSED)
            #expect(error.hint == "nothing is listening on 127.0.0.1:\(port): is the peer (e.g. Bumble's tcp-server transport) running?")
        }
    }

    /// Starting an attempt to a peer that never answers returns at once; the attempt ends by
    /// itself with the timeout, as `connect` would.
    @Test func anUnansweredAttemptDoesNotHoldItsStarterAndTimesOut() throws {
        let listener = try TCPListener.listen(backlog: 0)
        let held = fillAcceptQueue(of: listener)
        let start = SystemClock.monotonicNow()
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: listener.port, timeout: .seconds(3))
        let started = SystemClock.monotonicNow() - start
        #expect(started < .seconds(1), "starting the attempt took \(started)")
        #expect(!attempt.isFinished, "connected past a full accept queue (held \(held.count))")
        #expect(waitUntilEnded(attempt))
        do {
            _ = try attempt.finish()
            Issue.record("connected past a full accept queue (held \(held.count))")
        } catch {
            #expect(error.errno == ETIMEDOUT)
            #expect(error.hint == "127.0.0.1:\(listener.port) did not answer within 3.0 seconds")
            #expect(SystemClock.monotonicNow() - start >= .seconds(3))
        }
    }

    /// An exiting loop cancels a hanging attempt and does not wait out its timeout.
    @Test func cancellingAHangingAttemptEndsItWithinItsStopCheck() throws {
        let listener = try TCPListener.listen(backlog: 0)
        let held = fillAcceptQueue(of: listener)
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: listener.port, timeout: .seconds(60))
        #expect(!attempt.isFinished, "connected past a full accept queue (held \(held.count))")
        let start = SystemClock.monotonicNow()
        attempt.cancel()
        let took = SystemClock.monotonicNow() - start
        #expect(took < .seconds(5), "cancel took \(took) of a 60 s timeout")
    }

    /// A connection made for an attempt nobody took is closed, not leaked: the peer sees EOF.
    @Test func cancellingAConnectedAttemptClosesTheConnection() throws {
        let listener = try TCPListener.listen()
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        #expect(waitUntilEnded(attempt))
        let server = try acceptOne(listener)
        attempt.cancel()
        var buffer: [UInt8] = []
        #expect(readable(server.fileDescriptor))
        #expect(try server.read(into: &buffer, maxCount: 16) == 0, "the cancelled attempt's connection is still open")
        server.close()
    }

    @Test func theResultIsTakenOnce() throws {
        let listener = try TCPListener.listen()
        let attempt = try TCPConnection.Attempt(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        let client = try attempt.finish()
        defer { client.close() }
        #expect(throws: PlatformError.self) { _ = try attempt.finish() }
    }

    /// The stop request is looked at before each address and while the handshake waits.
    @Test func aStoppedConnectSaysCancelled() throws {
        let listener = try TCPListener.listen()
        do {
            _ = try TCPConnection.connectSocket(host: "127.0.0.1", port: listener.port, timeout: .seconds(5), stopRequested: { true })
            Issue.record("connected although stopped")
        } catch {
            #expect(error.errno == ECANCELED)
            #expect(error.reason == "stopped before it connected")
        }
    }
}
