#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The systemd service notification protocol, spoken without libsystemd: each notification is
/// one datagram of newline-separated `KEY=VALUE` fields sent to the AF_UNIX socket named by
/// `NOTIFY_SOCKET` (a filesystem path, or `@name` for the abstract namespace).
///
/// Source: sd_notify(3) and systemd.service(5) (`Type=notify`, `WatchdogSec=`), "Description"
/// and "Environment" sections; the wire format is documented there as the stable interface.
///
/// The socket is opened non-blocking and close-on-exec: a stalled systemd must never stall the
/// alarms, and a child process (e.g. a mount helper) must not inherit it.
public final class SystemdNotifier {
    /// Where datagrams go: a path, or (when `isAbstract`) a name in the abstract namespace.
    public let socketName: String
    public let isAbstract: Bool
    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    /// recommends, so one late turn does not get the service killed. Nil when systemd does not
    /// watch this process.
    public let watchdogInterval: Duration?
    private var descriptor: Int32 = -1

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`. Nil when
    /// not started by systemd with `Type=notify` (no or empty `NOTIFY_SOCKET`, or one that is
    /// neither an absolute path nor an `@` name). The watchdog applies only when `WATCHDOG_PID`
    /// is absent or names this process (`pid`, the current process by default): a child that
    /// inherited the variables must not feed its parent's watchdog.
    public init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let socket = environment["NOTIFY_SOCKET"], socket.count > 1 else { return nil }
        if socket.hasPrefix("@") {
            socketName = String(socket.dropFirst())
            isAbstract = true
        } else if socket.hasPrefix("/") {
            socketName = socket
            isAbstract = false
        } else {
            return nil
        }
        // sun_path holds 108 bytes: a path plus its NUL, or the NUL marker plus an abstract name.
        guard socketName.utf8.count < 108 else { return nil }
        let watchedPid = environment["WATCHDOG_PID"].flatMap { Int32($0) }
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0,
           watchedPid == nil || watchedPid == pid {
            watchdogInterval = .microseconds(Int64(clamping: usec / 2))
        } else {
            watchdogInterval = nil
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Sends `fields` (e.g. `["READY=1", "STATUS=watching 2 transmitters"]`) as one datagram.
    /// Throws when the socket cannot be created or the datagram not delivered (the socket
    /// vanished, systemd's queue is full): the caller logs it; nothing here traps.
    public func send(_ fields: [String]) throws(PlatformError) {
        let target = isAbstract ? "@" + socketName : socketName
        if descriptor < 0 {
            let fd = socket(AF_UNIX, Self.datagramType, 0)
            guard fd >= 0 else { throw .fromErrno("socket(AF_UNIX, SOCK_DGRAM) for NOTIFY_SOCKET") }
            descriptor = fd
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let nameBytes = Array(socketName.utf8)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        // Abstract names start with a NUL and are exactly as long as the length says; paths end
        // with a NUL (sockaddr_un is zeroed, so it is already there).
        let lead = isAbstract ? 1 : 0
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in nameBytes.enumerated() { raw[lead + i] = byte }
        }
        let length = socklen_t(pathOffset + lead + nameBytes.count + (isAbstract ? 0 : 1))
        let message = Array(fields.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { bytes in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        if sent < 0 {
            throw .fromErrno("sendto(NOTIFY_SOCKET \(target))") { code in
                code == ENOENT || code == ECONNREFUSED
                    ? "the notification socket is gone: is systemd (or the test harness) still running?" : nil
            }
        }
        if sent != message.count {
            throw PlatformError(operation: "sendto(NOTIFY_SOCKET \(target))", errno: 0,
                                reason: "sent \(sent) of \(message.count) bytes")
        }
    }

    #if canImport(Glibc)
    private static let datagramType = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
    private static let datagramType = SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC
    #endif
}
