#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// A listening TCP socket: the other end of `TCPConnection` in tests, and a way for a local
/// tool to attach to a running Vigil. Bind to loopback unless you mean otherwise.
public final class TCPListener {
    public private(set) var fileDescriptor: Int32
    /// The port actually bound (the kernel's choice when 0 was asked for).
    public let port: UInt16
    /// "127.0.0.1:4000".
    public let name: String

    private init(fileDescriptor: Int32, port: UInt16, name: String) {
        self.fileDescriptor = fileDescriptor
        self.port = port
        self.name = name
    }

    deinit { close() }

    /// Binds `host:port` (port 0: any free port, read it back from `port`) and listens.
    public static func listen(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 16) throws(PlatformError) -> TCPListener {
        let target = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let addresses = try SocketAddressList(host: host, port: port, passive: true, target: target)
        defer { addresses.release() }
        guard let entry = addresses.entries.first else {
            throw PlatformError(operation: "listen(\(target))", errno: 0, reason: "getaddrinfo returned no addresses")
        }
        let fd = vigil_stream_socket(entry.family)
        guard fd >= 0 else { throw .fromErrno("socket(\(target))") }
        // A restarted Vigil must be able to listen again at once, not after TIME_WAIT.
        if vigil_set_reuse_address(fd) != 0 || bind(fd, entry.address, entry.length) != 0 || systemListen(fd, backlog) != 0 {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("listen(\(target))", errno: code, hint: code == EADDRINUSE ? "another program already listens on \(target)" : nil)
        }
        let bound = vigil_local_port(fd)
        guard bound >= 0 else {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("getsockname(\(target))", errno: code)
        }
        let boundName = host.contains(":") ? "[\(host)]:\(bound)" : "\(host):\(bound)"
        return TCPListener(fileDescriptor: fd, port: UInt16(bound), name: boundName)
    }

    /// Accepts one pending connection (non-blocking, TCP_NODELAY), or nil when none is waiting.
    public func accept() throws(PlatformError) -> (any ByteTransport)? {
        guard fileDescriptor >= 0 else { throw .system("accept(\(name))", errno: EBADF, hint: "the listener is closed") }
        while true {
            let fd = vigil_accept(fileDescriptor)
            if fd >= 0 {
                _ = vigil_set_tcp_nodelay(fd)
                return try FileDescriptorTransport(adopting: fd, kind: .streamSocket, name: "tcp client of \(name)")
            }
            let code = currentErrno
            switch code {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .system("accept(\(name))", errno: code)
            }
        }
    }

    public func close() {
        guard fileDescriptor >= 0 else { return }
        closeDescriptor(fileDescriptor)
        fileDescriptor = -1
    }
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
