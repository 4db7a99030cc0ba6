import Glibc
import Testing
@testable import Platform

@Suite struct TCPConnectorTests {
    /// Drives a connector the way the loop does: poll for writability, then `writable()`,
    /// until it connects or fails (10 s at most).
    private func drive(_ connector: TCPConnector) -> TCPConnector.Outcome? {
        for _ in 0..<20 {
            guard connector.fileDescriptor >= 0 else { return connector.failure.map { .failed($0) } }
            var entry = pollfd(fd: connector.fileDescriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, 10_000) == 1 else { return nil }
            let outcome = connector.writable()
            if case .connecting = outcome { continue }
            return outcome
        }
        return nil
    }

    private func closedPort() throws -> UInt16 {
        let listener = try TCPListener.listen()
        defer { listener.close() }
        return listener.port
    }

    @Test func itConnectsWithoutBlocking() throws {
        let listener = try TCPListener.listen()
        defer { listener.close() }
        let address = try #require(SocketAddress.numeric("127.0.0.1", port: listener.port))
        let connector = TCPConnector(target: "localhost:\(listener.port)", addresses: [address])
        #expect(connector.fileDescriptor >= 0)
        guard case .connected(let transport, let peer)? = drive(connector) else {
            Issue.record("did not connect")
            return
        }
        defer { transport.close() }
        #expect(peer == address)
        #expect(fcntl(transport.fileDescriptor, F_GETFL) & O_NONBLOCK != 0)
        #expect(connector.fileDescriptor == -1, "the connector gave its socket away")
        let accepted = try #require(try listener.accept())
        try transport.write(Array("ping".utf8))
        #expect(try receive(4, from: accepted) == Array("ping".utf8))
        accepted.close()
    }

    @Test func aRefusedConnectionFailsWithConnectsError() throws {
        let port = try closedPort()
        let connector = TCPConnector(target: "localhost:\(port)", addresses: [SocketAddress.numeric("127.0.0.1", port: port)!])
        guard case .failed(let error)? = drive(connector) else {
            Issue.record("a closed port did not fail")
            return
        }
        #expect(error.errno == ECONNREFUSED)
        #expect(error.operation == "connect(localhost:\(port) at 127.0.0.1:\(port))")
    }

    /// The first address refuses, the second listens: the connection is to the second.
    @Test func theNextAddressIsTriedAfterAFailure() throws {
        let listener = try TCPListener.listen()
        defer { listener.close() }
        let refused = try closedPort()
        let addresses = [SocketAddress.numeric("127.0.0.1", port: refused)!, SocketAddress.numeric("127.0.0.1", port: listener.port)!]
        let connector = TCPConnector(target: "two", addresses: addresses)
        guard case .connected(let transport, let peer)? = drive(connector) else {
            Issue.record("did not reach the second address")
            return
        }
        #expect(peer == addresses[1])
        transport.close()
    }

    @Test func noAddressesFailsAtOnce() {
        let connector = TCPConnector(target: "nowhere:1", addresses: [])
        #expect(connector.fileDescriptor == -1)
        #expect(connector.failure?.operation == "connect(nowhere:1)")
        guard case .failed = connector.writable() else {
            Issue.record("an empty connector did not fail")
            return
        }
    }

    @Test func closeEndsTheAttempt() throws {
        let listener = try TCPListener.listen()
        defer { listener.close() }
        let connector = TCPConnector(target: "x", addresses: [SocketAddress.numeric("127.0.0.1", port: listener.port)!])
        #expect(connector.fileDescriptor >= 0)
        connector.close()
        #expect(connector.fileDescriptor == -1)
        #expect(connector.failure != nil)
    }
}
