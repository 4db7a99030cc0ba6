import Glibc
import Testing
@testable import Platform

/// Non-blocking writes and a half close on a real loopback TCP connection.
@Suite struct StreamSocketTests {
    /// After `shutdownWrite` the peer reads the end of the stream, and can still send to us:
    /// how an HTTP server ends a connection without resetting the client's last request.
    @Test func shutdownWriteEndsOurSideOnly() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        defer { client.close() }
        var server: (any ByteTransport)?
        for _ in 0..<500 where server == nil {
            var entry = pollfd(fd: listener.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 10)
            server = try listener.accept()
        }
        let accepted = try #require(server)
        defer { accepted.close() }
        #expect(try StreamSocket.send(accepted.fileDescriptor, Array("bye".utf8)[...]) == 3)
        try StreamSocket.shutdownWrite(accepted.fileDescriptor)
        #expect(try receive(3, from: client) == Array("bye".utf8))
        var entry = pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 5000) == 1)
        var rest: [UInt8] = []
        #expect(try client.read(into: &rest, maxCount: 16) == 0)  // the end of the stream
        try client.write(Array("late".utf8))
        #expect(try receive(4, from: accepted) == Array("late".utf8))
        #expect(throws: PlatformError.self) { try StreamSocket.shutdownWrite(-1) }
    }

    @Test func aFullSocketTakesNothingAndAnEmptySliceIsNoWrite() throws {
        let listener = try TCPListener.listen()
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: .seconds(5))
        defer { client.close() }
        #expect(try StreamSocket.send(client.fileDescriptor, [][...]) == 0)
        var total = 0
        let chunk = [UInt8](repeating: 7, count: 65536)
        while true {
            let written = try StreamSocket.send(client.fileDescriptor, chunk[...])
            if written == 0 { break }
            total += written
            #expect(total < 64 << 20, "the socket never filled")
            if total >= 64 << 20 { break }
        }
        #expect(total > 0)
    }
}
