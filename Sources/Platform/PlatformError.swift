#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call, with what we were doing and what a person can do about it.
///
/// Vigil must never fail silently, and the person reading the error is usually someone at a
/// bedside with a Raspberry Pi, not a kernel developer: so every error names the operation,
/// carries the errno (0 when the failure is not a system error, e.g. an unsupported baud rate)
/// and, where we know one, an actionable hint ("run as root or setcap ...").
public struct PlatformError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What we were doing, e.g. `bind(hci0, HCI_CHANNEL_USER)` or `connect(127.0.0.1:1234)`.
    public var operation: String
    /// The errno value, or 0 when the error did not come from the kernel.
    public var errno: Int32
    /// What went wrong: `strerror(errno)` or our own explanation.
    public var reason: String
    /// What to do about it, when we know.
    public var hint: String?

    public init(operation: String, errno: Int32, reason: String, hint: String? = nil) {
        self.operation = operation
        self.errno = errno
        self.reason = reason
        self.hint = hint
    }

    /// An error from a system call that reported `code`.
    public static func system(_ operation: String, errno code: Int32, hint: String? = nil) -> PlatformError {
        PlatformError(operation: operation, errno: code, reason: describeErrno(code), hint: hint)
    }

    /// An error from the system call that just failed: reads errno *before* building the
    /// operation text, since formatting a string may allocate and allocation may touch errno.
    static func fromErrno(_ operation: @autoclosure () -> String, hint: (Int32) -> String? = { _ in nil }) -> PlatformError {
        let code = currentErrno
        return .system(operation(), errno: code, hint: hint(code))
    }

    /// A non-blocking descriptor had nothing to read (or no room to write) right now. Callers that
    /// read only after `PollLoop` reported the descriptor readable rarely see this.
    public var isWouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
    /// Nothing at the path (ENOENT): a file not made yet, unlike one there that cannot be read.
    public var isNoSuchFile: Bool { errno == ENOENT }
    /// A directory where a file was expected (EISDIR).
    public var isDirectoryInTheWay: Bool { errno == EISDIR }

    /// The symbolic name of `errno` (`"EAFNOSUPPORT"`), for the ones Vigil is likely to meet.
    public var errnoName: String? { errno == 0 ? nil : errnoNames[errno] }

    public var description: String {
        var text = "\(operation) failed: \(reason)"
        if let name = errnoName { text += " (\(name))" } else if errno != 0 { text += " (errno \(errno))" }
        if let hint { text += ": \(hint)" }
        return text
    }
}

/// `strerror` text for an errno value.
func describeErrno(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

/// The current thread's errno (named so it does not collide with `PlatformError.errno`).
var currentErrno: Int32 { errno }

/// Symbolic names: `strerror` says "Address family not supported by protocol", but a person
/// searching the web for help is better served by `EAFNOSUPPORT`.
private let errnoNames: [Int32: String] = [
    EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF",
    EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST",
    ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", EMFILE: "EMFILE",
    ENOTTY: "ENOTTY", ENOSPC: "ENOSPC", EROFS: "EROFS", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG",
    EUSERS: "EUSERS", ENOTSOCK: "ENOTSOCK", EPROTONOSUPPORT: "EPROTONOSUPPORT",
    EAFNOSUPPORT: "EAFNOSUPPORT", EADDRINUSE: "EADDRINUSE", EADDRNOTAVAIL: "EADDRNOTAVAIL",
    ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH", ECONNRESET: "ECONNRESET",
    ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH",
    EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS", ERFKILL: "ERFKILL", ENXIO: "ENXIO",
    ENOTCONN: "ENOTCONN", EOPNOTSUPP: "EOPNOTSUPP",
    // What the HCI user channel answers once its controller is unplugged (hci_sock.c).
    EBADFD: "EBADFD", ESHUTDOWN: "ESHUTDOWN",
]
