import Glibc
import Testing
@testable import Platform

@Suite struct QueuedLineWriterTests {
    /// Everything readable from `fd` until the writer's end closes it or `limit` bytes came.
    private func readAll(_ fd: Int32, limit: Int = .max) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let n = read(fd, &chunk, min(chunk.count, limit - bytes.count))
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func linesArriveInOrderWithOneNewlineEach() throws {
        let pipe = makePipe()
        defer { close(pipe.read) }
        do {
            let writer = try QueuedLineWriter(fileDescriptor: pipe.write) { "dropped \($0)" }
            for i in 0..<100 { writer.write("line \(i)") }
            writer.write("ends\n")
            #expect(writer.flush(within: .seconds(5)))
            #expect(writer.droppedLines == 0)
        }
        close(pipe.write)
        #expect(readAll(pipe.read) == (0..<100).map { "line \($0)\n" }.joined() + "ends\n")
    }

    /// Nobody reads the pipe, and it is full (a journald that stalled): every `write` returns
    /// at once, what does not fit in the queue is dropped and counted, and once the reader
    /// comes back each run of dropped lines is said where it was, with its count, and nothing
    /// else is lost or reordered.
    @Test func aDescriptorThatTakesNothingCostsTheWriterNothing() throws {
        let pipe = makePipe()
        defer { close(pipe.read) }
        let stalled = fillPipe(pipe.write)
        // 100 bytes with the newline: the queue holds 40.
        let line = { (i: Int) in "\(i) " + String(repeating: "x", count: 97 - String(i).count) }
        var dropped = 0
        do {
            let writer = try QueuedLineWriter(fileDescriptor: pipe.write, capacity: 4_000) { "dropped \($0)" }
            for i in 0..<1_000 { writer.write(line(i)) }
            dropped = writer.droppedLines
            // What the queue holds, and what the thread holds in its write: no more.
            #expect(dropped >= 1_000 - 80, "\(dropped) dropped")
            #expect(!writer.flush(within: .milliseconds(100)), "nothing can have been written")
            // The reader comes back: the bytes that filled the pipe come out first.
            #expect(readAll(pipe.read, limit: stalled).count == stalled)
            #expect(writer.flush(within: .seconds(5)))
            writer.write("after")
            #expect(writer.flush(within: .seconds(5)))
            #expect(writer.droppedLines == dropped)
        }
        close(pipe.write)
        let lines = readAll(pipe.read).split(separator: "\n").map(String.init)
        // Each line is the next one written, or says how many were dropped before the next.
        var next = 0
        var said = 0
        for text in lines.dropLast() {
            if text.hasPrefix("dropped "), let count = Int(text.dropFirst(8)) {
                next += count
                said += count
            } else {
                #expect(text == line(next), "expected line \(next), got \(text.prefix(12))")
                next += 1
            }
        }
        #expect(next == 1_000 && said == dropped, "\(next) lines accounted for, \(said) said dropped of \(dropped)")
        #expect(lines.last == "after")
    }

    /// Writes to the pipe until it is full (non-blocking for that, blocking again after);
    /// the bytes written.
    private func fillPipe(_ fd: Int32) -> Int {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        let page = [UInt8](repeating: UInt8(ascii: "-"), count: 4096)
        var total = 0
        while true {
            let n = write(fd, page, page.count)
            if n <= 0 { break }
            total += n
        }
        while write(fd, page, 1) == 1 { total += 1 }
        return total
    }

    /// A writer that ends waits for what it queued to be written.
    @Test func theEndWritesWhatIsQueued() throws {
        let pipe = makePipe()
        defer { close(pipe.read) }
        do {
            let writer = try QueuedLineWriter(fileDescriptor: pipe.write) { "dropped \($0)" }
            for i in 0..<1_000 { writer.write("\(i)") }
        }
        close(pipe.write)
        #expect(readAll(pipe.read).split(separator: "\n").count == 1_000)
    }

    @Test func itsThreadTakesNoSignals() throws {
        let pipe = makePipe()
        defer { close(pipe.read); close(pipe.write) }
        let writer = try QueuedLineWriter(fileDescriptor: pipe.write, name: "vigil-log-test") { "dropped \($0)" }
        writer.write("x")
        // Written: the thread has run and named itself.
        #expect(writer.flush(within: .seconds(5)))
        let masks = try blockedSignalMasks(ofThreadsNamed: "vigil-log-test")
        #expect(masks.count == 1)
        #expect(masks.allSatisfy { $0 & (1 << (UInt64(SIGTERM) - 1)) != 0 })
    }
}
