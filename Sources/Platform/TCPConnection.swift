#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import CPlatform

/// An outgoing TCP connection: how Vigil reaches Bumble's virtual controller
/// (`tcp-server:127.0.0.1:PORT`, see docs/bumble-peer.md) and any other H4-over-TCP peer.
public enum TCPConnection {
    /// Connects to `host` (numeric IPv4 or IPv6, or a name resolved with getaddrinfo) on `port`,
    /// trying each address in turn within one overall `timeout`. The returned transport is
    /// non-blocking with TCP_NODELAY set, since H4 packets are small and latency matters more
    /// than throughput. Blocks for up to `timeout` (more while a name resolves): an event loop
    /// that must keep turning starts an `Attempt` instead.
    public static func connect(host: String, port: UInt16, timeout: Duration) throws(PlatformError) -> any ByteTransport {
        try connectSocket(host: host, port: port, timeout: timeout, stopRequested: { false }).adopt()
    }

    /// A connected socket not yet wrapped in a transport: what a connect made on another
    /// thread hands back (a descriptor is Sendable, a transport is not).
    struct ConnectedSocket: Sendable {
        let fileDescriptor: Int32
        /// "127.0.0.1:4000" or "[::1]:4000": the address that answered.
        let peer: String

        func adopt() throws(PlatformError) -> any ByteTransport {
            try FileDescriptorTransport(adopting: fileDescriptor, kind: .streamSocket, name: "tcp \(peer)")
        }
    }

    /// `connect`'s work, which `stopRequested` can end early (within `stopCheckInterval`) with
    /// ECANCELED: an attempt whose loop is exiting must not hold the exit for the whole timeout.
    static func connectSocket(host: String, port: UInt16, timeout: Duration,
                              stopRequested: () -> Bool) throws(PlatformError) -> ConnectedSocket {
        let target = target(host: host, port: port)
        let deadline = SystemClock.monotonicNow() + timeout
        let addresses = try SocketAddressList(host: host, port: port, passive: false, target: target)
        defer { addresses.release() }

        var lastError = PlatformError(operation: "connect(\(target))", errno: 0, reason: "getaddrinfo returned no addresses", hint: "check the host name")
        for entry in addresses.entries {
            do throws(PlatformError) {
                let fd = try connectOne(entry, target: target, deadline: deadline, timeout: timeout, stopRequested: stopRequested)
                return ConnectedSocket(fileDescriptor: fd, peer: entry.text)
            } catch {
                lastError = error
                if error.errno == ETIMEDOUT || error.errno == ECANCELED { break }  // the whole budget is spent, or no longer wanted
            }
        }
        throw lastError
    }

    /// "127.0.0.1:4000" or "[::1]:4000": `host` and `port` as the log and the errors name them.
    static func target(host: String, port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// How often a connect waiting for its handshake looks at its stop request.
    static let stopCheckInterval = Duration.milliseconds(100)

    private static func connectOne(_ entry: SocketAddressList.Entry, target: String, deadline: MonotonicInstant, timeout: Duration,
                                   stopRequested: () -> Bool) throws(PlatformError) -> Int32 {
        let operation = "connect(\(target) at \(entry.text))"
        if stopRequested() { throw PlatformError(operation: operation, errno: ECANCELED, reason: "stopped before it connected") }
        let fd = vigil_stream_socket(entry.family)
        guard fd >= 0 else { throw .fromErrno("socket(\(entry.text))") }
        var succeeded = false
        defer { if !succeeded { closeDescriptor(fd) } }

        if systemConnect(fd, entry.address, entry.length) != 0 {
            let code = currentErrno
            guard code == EINPROGRESS || code == EINTR else { throw .system(operation, errno: code, hint: hint(forErrno: code, target: target, timeout: timeout)) }
            // Non-blocking connect: wait for the handshake to finish, then ask how it went.
            while true {
                let now = SystemClock.monotonicNow()
                if now >= deadline {
                    throw .system(operation, errno: ETIMEDOUT, hint: hint(forErrno: ETIMEDOUT, target: target, timeout: timeout))
                }
                if stopRequested() { throw PlatformError(operation: operation, errno: ECANCELED, reason: "stopped before it connected") }
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let wake = min(deadline, now + stopCheckInterval)
                let ready = poll(&entry, 1, PollLoop.timeoutMilliseconds(from: now, until: wake))
                if ready > 0 { break }
                if ready < 0 && currentErrno != EINTR { throw .fromErrno("poll(\(target))") }
            }
            let outcome = vigil_socket_error(fd)
            if outcome != 0 {
                let code = outcome < 0 ? currentErrno : outcome
                throw .system(operation, errno: code, hint: hint(forErrno: code, target: target, timeout: timeout))
            }
        }
        if vigil_set_tcp_nodelay(fd) != 0 { throw .fromErrno("setsockopt(\(target), TCP_NODELAY)") }
        succeeded = true
        return fd
    }

    static func hint(forErrno code: Int32, target: String, timeout: Duration) -> String? {
        switch code {
        case ECONNREFUSED: return "nothing is listening on \(target): is the peer (e.g. Bumble's tcp-server transport) running?"
        case ETIMEDOUT: return "\(target) did not answer within \(timeout)"
        case ENETUNREACH, EHOSTUNREACH: return "no route to \(target): check the address and the network"
        case EADDRNOTAVAIL: return "\(target) is not a usable address"
        default: return nil
        }
    }
}

/// `connect(2)` under a name that the enum's own `connect` does not shadow.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// The result of getaddrinfo, walked into Swift values; `release()` frees it.
struct SocketAddressList {
    struct Entry {
        var family: Int32
        var address: UnsafePointer<sockaddr>
        var length: socklen_t
        /// "127.0.0.1:4000" or "[::1]:4000".
        var text: String
    }

    private let head: UnsafeMutablePointer<addrinfo>?
    let entries: [Entry]

    init(host: String, port: UInt16, passive: Bool, target: String) throws(PlatformError) {
        var list: UnsafeMutablePointer<addrinfo>?
        let status = vigil_resolve_tcp(host, String(port), passive ? 1 : 0, &list)
        guard status == 0 else {
            let code = status == EAI_SYSTEM ? currentErrno : 0
            throw PlatformError(
                operation: "getaddrinfo(\(target))", errno: code,
                reason: String(cString: gai_strerror(status)), hint: "check the host name or use a numeric address")
        }
        head = list
        var entries: [Entry] = []
        var node = list
        while let current = node {
            if let address = current.pointee.ai_addr {
                var text = [CChar](repeating: 0, count: 128)
                let formatted = vigil_format_address(address, current.pointee.ai_addrlen, &text, text.count) == 0
                entries.append(Entry(
                    family: current.pointee.ai_family, address: UnsafePointer(address),
                    length: current.pointee.ai_addrlen,
                    text: formatted ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : target))
            }
            node = current.pointee.ai_next
        }
        self.entries = entries
    }

    func release() {
        if let head { freeaddrinfo(head) }
    }
}
