#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks

/// One `poll(2)` over every descriptor Vigil watches (the HCI socket, GPIO line fds, the export
/// tty, the signal fd), sleeping until the core's next deadline: one thread, one loop.
///
/// `wait(until:)` never returns empty before the deadline. poll's timeout is in whole
/// milliseconds, so it is rounded up (waking early would find nothing due and spin), and a
/// timeout that the kernel ends a hair early is simply waited out again.
public struct PollLoop {
    /// What poll reported for one registered descriptor.
    public struct Event: Equatable, Sendable {
        public var fileDescriptor: Int32
        /// Data (or a pending connection, or end of stream) to read: POLLIN.
        public var isReadable: Bool
        /// Room to write: POLLOUT (only when write interest is registered).
        public var isWritable: Bool
        /// The peer hung up: POLLHUP. Read what is left; the next read returns 0.
        public var isHangUp: Bool
        /// An error condition: POLLERR. The next read or write reports it.
        public var isError: Bool
        /// The descriptor is not open: POLLNVAL. Unregister it, or poll returns at once forever.
        public var isInvalid: Bool

        public init(fileDescriptor: Int32, isReadable: Bool = false, isWritable: Bool = false,
                    isHangUp: Bool = false, isError: Bool = false, isInvalid: Bool = false) {
            self.fileDescriptor = fileDescriptor
            self.isReadable = isReadable
            self.isWritable = isWritable
            self.isHangUp = isHangUp
            self.isError = isError
            self.isInvalid = isInvalid
        }
    }

    private var entries: [pollfd] = []

    public init() {}

    /// The registered descriptors, in registration order.
    public var fileDescriptors: [Int32] { entries.map(\.fd) }

    /// Watches `fileDescriptor` for reading, and for writing when `writable` (ask for that only
    /// while you have bytes queued, or poll returns at once). Registering again updates interest.
    public mutating func register(_ fileDescriptor: Int32, readable: Bool = true, writable: Bool = false) {
        var events: Int16 = 0
        if readable { events |= Int16(POLLIN) }
        if writable { events |= Int16(POLLOUT) }
        if let index = entries.firstIndex(where: { $0.fd == fileDescriptor }) {
            entries[index].events = events
        } else {
            entries.append(pollfd(fd: fileDescriptor, events: events, revents: 0))
        }
    }

    /// Turns write interest on or off for a registered descriptor (no effect on others).
    public mutating func setWriteInterest(_ fileDescriptor: Int32, _ wanted: Bool) {
        guard let index = entries.firstIndex(where: { $0.fd == fileDescriptor }) else { return }
        if wanted { entries[index].events |= Int16(POLLOUT) } else { entries[index].events &= ~Int16(POLLOUT) }
    }

    public mutating func unregister(_ fileDescriptor: Int32) {
        entries.removeAll { $0.fd == fileDescriptor }
    }

    /// Sleeps until a registered descriptor is ready or `deadline` passes (nil: no deadline),
    /// and returns the ready descriptors; empty means the deadline has passed. EINTR is retried
    /// with the remaining time.
    public mutating func wait(until deadline: MonotonicInstant?) throws(PlatformError) -> [Event] {
        while true {
            let now = SystemClock.monotonicNow()
            let timeout = Self.timeoutMilliseconds(from: now, until: deadline)
            let result = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
            if result < 0 {
                let code = currentErrno
                if code == EINTR { continue }
                throw .system("poll(\(entries.count) descriptors)", errno: code)
            }
            if result > 0 { return readyEvents() }
            if let deadline, SystemClock.monotonicNow() >= deadline { return [] }
        }
    }

    private func readyEvents() -> [Event] {
        var events: [Event] = []
        for entry in entries where entry.revents != 0 {
            let r = Int32(entry.revents)
            events.append(Event(
                fileDescriptor: entry.fd, isReadable: r & POLLIN != 0, isWritable: r & POLLOUT != 0,
                isHangUp: r & POLLHUP != 0, isError: r & POLLERR != 0, isInvalid: r & POLLNVAL != 0))
        }
        return events
    }

    /// The poll(2) timeout for `deadline` seen from `now`: -1 for none, 0 when it has passed,
    /// otherwise the wait in milliseconds rounded up (at most Int32.max, about 24 days).
    public static func timeoutMilliseconds(from now: MonotonicInstant, until deadline: MonotonicInstant?) -> Int32 {
        guard let deadline else { return -1 }
        guard deadline > now else { return 0 }
        let nanoseconds = deadline.nanoseconds.subtractingReportingOverflow(now.nanoseconds)
        if nanoseconds.overflow { return Int32.max }
        let milliseconds = nanoseconds.partialValue / 1_000_000 + (nanoseconds.partialValue % 1_000_000 == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }
}
