import Clocks
import Glibc
import Testing
@testable import Platform

/// Unix stream sockets in a temporary directory: real files, real syscalls, bounded waits.
@Suite struct UnixStreamSocketTests {
    /// The mode bits of `path`, or nil if nothing is there.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode
    }

    /// Waits for the listener to have a client and accepts it.
    static func accept(_ listener: UnixStreamSocket.Listener) throws -> any ByteTransport {
        var loop = PollLoop()
        loop.register(listener.fileDescriptor)
        guard try !loop.wait(until: SystemClock.monotonicNow() + .seconds(5)).isEmpty, let client = try listener.accept() else {
            throw TestTimeout(description: "no client to accept")
        }
        return client
    }

    @Test func connectAnswerClose() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            let listener = try UnixStreamSocket.Listener.listen(path: path, mode: 0o660)
            #expect(listener.path == path)
            let mode = try #require(Self.mode(path))
            #expect(mode & S_IFMT == S_IFSOCK)
            #expect(mode & 0o777 == 0o660)
            #expect(try listener.accept() == nil)  // nobody yet: nil, not a block

            let client = try UnixStreamSocket.connect(path: path)
            let server = try Self.accept(listener)
            try client.write(Array("STATUS\n".utf8))
            #expect(try receive(7, from: server) == Array("STATUS\n".utf8))
            let answer = Array("all well\n".utf8)
            #expect(try UnixStreamSocket.send(server.fileDescriptor, answer[...]) == answer.count)
            server.close()
            #expect(try receive(answer.count, from: client) == answer)
            var buffer: [UInt8] = []
            #expect(try client.read(into: &buffer, maxCount: 16) == 0)  // closed after the answer
            client.close()

            listener.close()
            #expect(Self.mode(path) == nil)  // removed at exit
        }
    }

    @Test func nothingListeningIsSaidSo() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            #expect {
                try UnixStreamSocket.connect(path: path)
            } throws: { error in
                let error = error as! PlatformError
                return error.errno == ENOENT && error.isNothingListening && !error.isPermissionDenied
                    && error.description.contains("nothing listens on \(path)")
            }
        }
    }

    @Test func aStaleSocketFileIsReplaced() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            // A daemon killed with SIGKILL leaves its file: bind a socket there and never listen.
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0)
            #expect {
                try UnixStreamSocket.connect(path: path)
            } throws: { ($0 as! PlatformError).errno == ECONNREFUSED }

            let listener = try UnixStreamSocket.Listener.listen(path: path)
            defer { listener.close() }
            let client = try UnixStreamSocket.connect(path: path)
            defer { client.close() }
            _ = try Self.accept(listener)
        }
    }

    @Test func aLiveDaemonIsNotDisplaced() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            let first = try UnixStreamSocket.Listener.listen(path: path)
            #expect {
                try UnixStreamSocket.Listener.listen(path: path)
            } throws: { error in
                let error = error as! PlatformError
                return error.isAddressInUse && error.description.contains("answers on \(path)")
            }
            // The first still answers, and the loser's failure did not remove its file.
            let client = try UnixStreamSocket.connect(path: path)
            _ = try Self.accept(first)
            client.close()
            first.close()
            #expect(Self.mode(path) == nil)
        }
    }

    @Test func somethingThatIsNotASocketIsNeverRemoved() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            try AtomicFile.write(path: path, bytes: Array("precious".utf8))
            #expect {
                try UnixStreamSocket.Listener.listen(path: path)
            } throws: { ($0 as! PlatformError).errno == EEXIST }
            #expect(try FileSystem.readFile(path: path) == Array("precious".utf8))
        }
    }

    @Test func aMissingDirectoryIsAnErrorWithAHint() throws {
        _ = try withTemporaryDirectory { directory in
            #expect {
                try UnixStreamSocket.Listener.listen(path: directory + "/no/such/dir/status.sock")
            } throws: { error in
                let error = error as! PlatformError
                return error.errno == ENOENT && error.description.contains("RuntimeDirectory")
            }
        }
    }

    @Test func aPathTooLongForSunPathIsRefusedNotTruncated() throws {
        let path = "/tmp/" + String(repeating: "x", count: 120)
        #expect {
            try UnixStreamSocket.Listener.listen(path: path)
        } throws: { ($0 as! PlatformError).errno == ENAMETOOLONG }
        #expect {
            try UnixStreamSocket.connect(path: path)
        } throws: { ($0 as! PlatformError).errno == ENAMETOOLONG }
    }

    /// A client that stops reading: `send` takes what fits and then says 0, never blocks, and
    /// a client that went away is an error (EPIPE), not a SIGPIPE.
    @Test func sendNeverBlocksAndSurvivesAClosedPeer() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/status.sock"
            let listener = try UnixStreamSocket.Listener.listen(path: path)
            defer { listener.close() }
            let client = try UnixStreamSocket.connect(path: path)
            let server = try Self.accept(listener)
            defer { server.close() }
            let chunk = pattern(64 * 1024)
            var total = 0
            let start = SystemClock.monotonicNow()
            while true {
                let n = try UnixStreamSocket.send(server.fileDescriptor, chunk[...])
                if n == 0 { break }
                total += n
                try #require(total < 64 * 1024 * 1024, "the socket never filled")
            }
            #expect(total > 0)
            #expect(SystemClock.monotonicNow() - start < .seconds(2))
            client.close()
            // Until the peer's socket is released, `send` still sees a full buffer and says 0.
            // That release is not always immediate here: any test in this process that spawns a
            // program forks, and the child holds a copy of every descriptor (CLOEXEC closes them
            // only at its exec), so under load the close can take effect a moment later.
            let closedAt = SystemClock.monotonicNow()
            #expect {
                while SystemClock.monotonicNow() - closedAt < .seconds(30) {
                    if try UnixStreamSocket.send(server.fileDescriptor, chunk[...]) == 0 { usleep(10_000) }
                }
            } throws: { [EPIPE, ECONNRESET].contains(($0 as! PlatformError).errno) }
        }
    }
}
