#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import CPlatform
import Synchronization

/// Lines for a descriptor that may stop taking them, written on a thread of their own so the
/// event loop never waits on it.
///
/// Under systemd, standard error is a stream socket to journald. When journald stalls (a full
/// or failing journal disk, journald being restarted, a flood from another service), the
/// socket's buffer fills and a plain write(2) blocks: the loop would stop sounding alarms and
/// feeding the watchdog behind a log line. Here `write(_:)` only appends to a bounded queue
/// (`capacity` bytes) and wakes the thread; the thread writes, blocking as long as it must. A
/// line that does not fit is dropped and counted, and the count is written, as
/// `droppedNote(count)`, before the next line that fits: the log says what it lost.
public final class QueuedLineWriter {
    public let capacity: Int
    private let shared: Shared
    private var thread: pthread_t?

    /// Starts the writing thread for `fileDescriptor` (not closed here: it belongs to the
    /// caller, usually standard error).
    public init(fileDescriptor: Int32, capacity: Int = 256 * 1024, name: String = "vigil-log",
                droppedNote: @escaping @Sendable (Int) -> String) throws(PlatformError) {
        let wake = eventfd(0, Int32(EFD_CLOEXEC))
        guard wake >= 0 else { throw .fromErrno("eventfd(\(name))") }
        let shared = Shared(fileDescriptor: fileDescriptor, wake: wake, droppedNote: droppedNote)
        let retained = Unmanaged.passRetained(WriterContext(name: name, shared: shared)).toOpaque()
        switch createSignalFreeThread(queuedLineWriterMain, retained) {
        case .success(let created):
            thread = created
        case .failure(let error):
            Unmanaged<WriterContext>.fromOpaque(retained).release()
            close(wake)
            throw .system("pthread_create(\(name))", errno: error.code)
        }
        self.capacity = max(1, capacity)
        self.shared = shared
    }

    /// Queues `line` and a newline (unless it ends with one); never blocks. A line that does
    /// not fit in what is left of `capacity` is dropped and counted.
    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        let capacity = capacity
        let queued = shared.state.withLock { state -> Bool in
            var note: [UInt8] = []
            if state.droppedSinceNote > 0 {
                note = Array(shared.droppedNote(state.droppedSinceNote).utf8)
                if note.last != UInt8(ascii: "\n") { note.append(UInt8(ascii: "\n")) }
            }
            guard state.queued.count + note.count + bytes.count <= capacity else {
                state.droppedSinceNote += 1
                state.droppedTotal += 1
                return false
            }
            state.queued += note
            state.queued += bytes
            state.droppedSinceNote = 0
            return true
        }
        // An eventfd counter only fails to take 1 if it would overflow: it cannot here.
        if queued { _ = eventfd_write(shared.wake, 1) }
    }

    /// Lines dropped since the start because the queue was full.
    public var droppedLines: Int { shared.state.withLock { $0.droppedTotal } }

    /// Waits, at most `limit`, until everything queued has been written: at exit, so the last
    /// lines (why Vigil stopped) reach the journal. True when it all went.
    @discardableResult
    public func flush(within limit: Duration) -> Bool {
        let end = SystemClock.monotonicNow() + limit
        while true {
            if shared.state.withLock({ $0.queued.isEmpty && !$0.writing }) { return true }
            if SystemClock.monotonicNow() >= end { return false }
            usleep(1_000)
        }
    }

    /// Stops the thread once it has written what is queued. A descriptor that takes nothing
    /// more would hold it for good: it is then left behind (detached), its lines with it.
    deinit {
        let drained = flush(within: .seconds(2))
        shared.state.withLock { $0.stopping = true }
        _ = eventfd_write(shared.wake, 1)
        if let thread {
            if drained { pthread_join(thread, nil) } else { pthread_detach(thread) }
        }
    }

    /// What the caller's side and the writing thread both touch.
    fileprivate final class Shared: Sendable {
        struct State {
            var queued: [UInt8] = []
            /// The thread has taken bytes off the queue and not finished writing them.
            var writing = false
            var droppedSinceNote = 0
            var droppedTotal = 0
            var stopping = false
        }

        let fileDescriptor: Int32
        let wake: Int32
        let droppedNote: @Sendable (Int) -> String
        let state = Mutex(State())

        init(fileDescriptor: Int32, wake: Int32, droppedNote: @escaping @Sendable (Int) -> String) {
            self.fileDescriptor = fileDescriptor
            self.wake = wake
            self.droppedNote = droppedNote
        }

        /// The thread's loop: sleep on the eventfd, then write whatever is queued.
        func run() {
            while true {
                var counter: eventfd_t = 0
                if eventfd_read(wake, &counter) != 0, currentErrno != EINTR { usleep(10_000) }
                while true {
                    let (bytes, stop) = state.withLock { state -> ([UInt8], Bool) in
                        let taken = state.queued
                        state.queued.removeAll(keepingCapacity: true)
                        state.writing = !taken.isEmpty
                        return (taken, state.stopping)
                    }
                    if bytes.isEmpty {
                        if stop {
                            close(wake)
                            return
                        }
                        break
                    }
                    // As long as it takes: waiting is this thread's job.
                    writeWaiting(fileDescriptor, bytes, pollsAtMost: nil)
                    state.withLock { $0.writing = false }
                }
            }
        }
    }
}

/// The thread's name and what it serves, handed through `pthread_create`'s one pointer.
private final class WriterContext: Sendable {
    let name: String
    let shared: QueuedLineWriter.Shared
    init(name: String, shared: QueuedLineWriter.Shared) {
        self.name = name
        self.shared = shared
    }
}

private func queuedLineWriterMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let writer = Unmanaged<WriterContext>.fromOpaque(context).takeRetainedValue()
    // Named for `top -H`. Cosmetic: a failure is ignored.
    _ = vigil_name_this_thread(String(writer.name.utf8.prefix(15)) ?? writer.name)
    writer.shared.run()
    return nil
}
