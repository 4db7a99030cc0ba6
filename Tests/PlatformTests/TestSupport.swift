import Clocks
import Glibc
import Platform

/// Helpers shared by the Platform tests: real descriptors, real syscalls, bounded waits.

struct TestTimeout: Error, CustomStringConvertible {
    var description: String
}

/// Reads from `transport` through a PollLoop until `count` bytes arrived (reassembling however
/// the kernel splits them) or `timeout` passes. Each read asks for at most `maxCount`.
func receive(_ count: Int, from transport: any ByteTransport, maxCount: Int = 4096,
             timeout: Duration = .seconds(5)) throws -> [UInt8] {
    var loop = PollLoop()
    loop.register(transport.fileDescriptor)
    let deadline = SystemClock.monotonicNow() + timeout
    var received: [UInt8] = []
    var buffer: [UInt8] = []
    while received.count < count {
        let events = try loop.wait(until: deadline)
        if events.isEmpty { throw TestTimeout(description: "got \(received.count) of \(count) bytes") }
        let n = try transport.read(into: &buffer, maxCount: min(maxCount, count - received.count))
        if n == 0 { throw TestTimeout(description: "end of stream after \(received.count) of \(count) bytes") }
        received += buffer
    }
    return received
}

/// A pipe as (read end, write end).
func makePipe() -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    let result = pipe(&fds)
    precondition(result == 0, "pipe2 failed: errno \(errno)")
    return (fds[0], fds[1])
}

/// A fresh temporary directory, removed by `body`'s end.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let directory = try FileSystem.makeTemporaryDirectory(prefix: "vigil-platform-tests")
    defer { try? FileSystem.removeTree(path: directory) }
    return try body(directory)
}

/// The bytes 0x00...0xFF repeated to `count`: every value, in an order that shows misplacement.
func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256 &+ seed) }
}
