#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// A TCP connect that never blocks: each address in turn, on the loop's own thread. The
/// socket is non-blocking, so `connect` returns at once (EINPROGRESS); the loop polls
/// `fileDescriptor` for writability and then calls `writable()`, which says whether the
/// handshake succeeded, and moves on to the next address when it did not. How long to wait
/// is the caller's decision (its time-out); `close()` ends the attempt.
public final class TCPConnector {
    /// How an attempt stands after `writable()`.
    public enum Outcome {
        /// Still connecting (to the next address now): poll `fileDescriptor` for writability.
        case connecting
        /// The connection, non-blocking, TCP_NODELAY set.
        case connected(any ByteTransport, SocketAddress)
        /// Every address failed; the last one's error.
        case failed(PlatformError)
    }

    /// "example.com:443": what is being connected to, for the errors.
    public let target: String
    private var remaining: [SocketAddress]
    /// The socket of the address being tried; -1 once the attempt ended.
    public private(set) var fileDescriptor: Int32 = -1
    private var current: SocketAddress?
    private var lastError: PlatformError?

    /// Starts connecting to the first of `addresses`. An address that fails at once (no route,
    /// an unsupported family) moves on to the next; the outcome is `.failed` only once all have.
    public init(target: String, addresses: [SocketAddress]) {
        self.target = target
        remaining = addresses
        startNext()
    }

    /// Whether every address has failed (`failure` says how the last one did).
    public var failure: PlatformError? {
        fileDescriptor < 0 ? lastError ?? PlatformError(operation: "connect(\(target))", errno: 0, reason: "no address to connect to") : nil
    }

    /// The socket became writable (or poll reported an error or a hang-up on it).
    public func writable() -> Outcome {
        guard fileDescriptor >= 0, let address = current else { return .failed(failure!) }
        let outcome = vigil_socket_error(fileDescriptor)
        if outcome == 0 {
            if vigil_set_tcp_nodelay(fileDescriptor) == 0 {
                do {
                    let transport = try FileDescriptorTransport(adopting: fileDescriptor, kind: .streamSocket, name: "tcp \(address)")
                    fileDescriptor = -1
                    current = nil
                    return .connected(transport, address)
                } catch {
                    fileDescriptor = -1  // the transport closed it
                    lastError = error
                }
            } else {
                lastError = .fromErrno("setsockopt(\(address), TCP_NODELAY)")
            }
        } else {
            let code = outcome < 0 ? currentErrno : outcome
            lastError = .system("connect(\(target) at \(address))", errno: code)
        }
        closeCurrent()
        startNext()
        return fileDescriptor >= 0 ? .connecting : .failed(failure!)
    }

    /// Ends the attempt, closing its socket.
    public func close() {
        closeCurrent()
        remaining.removeAll()
    }

    deinit { close() }

    private func closeCurrent() {
        if fileDescriptor >= 0 { closeDescriptor(fileDescriptor) }
        fileDescriptor = -1
        current = nil
    }

    /// Opens a socket for the next address and starts its connect: an immediate failure is
    /// remembered and the one after is tried.
    private func startNext() {
        while !remaining.isEmpty {
            let address = remaining.removeFirst()
            let fd = vigil_stream_socket(address.family)
            guard fd >= 0 else {
                lastError = .fromErrno("socket(\(address))")
                continue
            }
            let started = address.storage.withUnsafeBytes { raw in
                connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            let code = currentErrno
            // 0 (a loopback connect can finish at once) is reported by `writable()` like the rest.
            if started == 0 || code == EINPROGRESS || code == EINTR {
                fileDescriptor = fd
                current = address
                return
            }
            closeDescriptor(fd)
            lastError = .system("connect(\(target) at \(address))", errno: code)
        }
    }
}
