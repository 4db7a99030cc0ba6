#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Log lines to standard error (journald keeps them when Vigil runs as a service).
public enum StandardError {
    /// Writes `line` and a newline (unless it already ends with one) in one write where possible,
    /// so lines from one process do not interleave. Never throws: there is nowhere left to
    /// report a failure to write the log, and logging must not stop the alarm.
    public static func write(_ line: String) {
        write(line, to: 2)
    }

    /// `write(_:)` to any descriptor (tests use a pipe). Someone may have made stderr
    /// non-blocking (a shared terminal): then it waits a little, and gives up on this line
    /// rather than stall the alarm loop behind a stuck terminal.
    static func write(_ line: String, to fd: Int32) {
        var bytes = Array(line.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        writeWaiting(fd, bytes, pollsAtMost: 10)
    }
}

/// Writes every byte of `bytes` to `fd`, going on after EINTR and partial writes, and waiting
/// for room (poll, 100 ms at a time) while a non-blocking descriptor is full: `pollsAtMost`
/// times, or for as long as it takes when nil. Gives up on any other error (EPIPE, EBADF).
/// Returns whether every byte went.
@discardableResult
func writeWaiting(_ fd: Int32, _ bytes: [UInt8], pollsAtMost limit: Int?) -> Bool {
    var offset = 0
    var polls = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { writeDescriptor(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n > 0 {
            offset += n
            continue
        }
        let code = n < 0 ? currentErrno : EAGAIN
        if code == EINTR { continue }
        guard code == EAGAIN || code == EWOULDBLOCK, limit.map({ polls < $0 }) ?? true else { return false }
        polls += 1
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&entry, 1, 100)
    }
    return true
}
