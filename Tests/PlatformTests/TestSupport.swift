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

/// The blocked-signal masks (SigBlk in /proc) of this process's threads whose name starts with
/// `prefix`: what the kernel will deliver to each. Empty when none is running (yet).
func blockedSignalMasks(ofThreadsNamed prefix: String) throws -> [UInt64] {
    var masks: [UInt64] = []
    for task in try FileSystem.contentsOfDirectory(path: "/proc/self/task") {
        guard let comm = try? FileSystem.readFile(path: "/proc/self/task/\(task)/comm"),
              String(decoding: comm, as: UTF8.self).hasPrefix(prefix),
              let status = try? FileSystem.readFile(path: "/proc/self/task/\(task)/status") else { continue }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("SigBlk:") {
            if let mask = UInt64(line.dropFirst(7).filter { !$0.isWhitespace }, radix: 16) { masks.append(mask) }
        }
    }
    return masks
}
