#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks
import CPlatform

/// The one `ByteTransport` implementation: an owned, non-blocking file descriptor.
///
/// What differs between descriptor kinds is handled here, so callers see the same contract:
/// sockets are written with `MSG_NOSIGNAL` (a peer that closed must not kill Vigil with SIGPIPE);
/// a packet socket is read with `recvmsg` so a truncated packet is detected; a terminal with
/// VMIN = 0 returns 0 both when it is empty and when it hung up, so 0 is checked against POLLHUP,
/// and EIO (a PTY whose other end closed) counts as end of stream.
public final class FileDescriptorTransport: ByteTransport {
    public enum Kind: Sendable, Equatable {
        /// TCP: bytes, no boundaries.
        case streamSocket
        /// One packet per read and write (the HCI user channel: one H4 packet each).
        case packetSocket
        /// A serial port or PTY in raw mode.
        case terminal
        /// Anything else that reads and writes bytes (a pipe).
        case stream
    }

    public private(set) var fileDescriptor: Int32
    public let kind: Kind
    /// What this is, for error messages: "hci0", "tcp 127.0.0.1:4000", "/dev/ttyAMA0".
    public let name: String
    /// How long `write` may wait for the kernel to take more bytes before it fails.
    public var writeTimeout: Duration = .seconds(1)

    /// Kept between reads so a steady stream of reads does not allocate.
    private var scratch: [UInt8] = []

    /// Takes ownership of `fileDescriptor` (closed by `close()` or when this object goes away)
    /// and makes it non-blocking.
    public init(adopting fileDescriptor: Int32, kind: Kind, name: String) throws(PlatformError) {
        self.fileDescriptor = fileDescriptor
        self.kind = kind
        self.name = name
        if vigil_set_nonblocking(fileDescriptor) != 0 {
            let code = currentErrno
            closeDescriptor(fileDescriptor)
            self.fileDescriptor = -1
            throw .system("fcntl(\(name), O_NONBLOCK)", errno: code)
        }
    }

    deinit { close() }

    public func close() {
        guard fileDescriptor >= 0 else { return }
        closeDescriptor(fileDescriptor)
        fileDescriptor = -1
    }

    public func read(into buffer: inout [UInt8], maxCount: Int) throws(PlatformError) -> Int {
        guard fileDescriptor >= 0 else { throw .system("read(\(name))", errno: EBADF, hint: "the transport is closed") }
        guard maxCount > 0 else {
            throw PlatformError(operation: "read(\(name))", errno: EINVAL, reason: "maxCount must be at least 1, not \(maxCount)")
        }
        if scratch.count < maxCount { scratch = [UInt8](repeating: 0, count: maxCount) }
        while true {
            var truncated: Int32 = 0
            let fd = fileDescriptor
            let isPacket = kind == .packetSocket
            let n = scratch.withUnsafeMutableBytes { raw in
                isPacket
                    ? vigil_receive_packet(fd, raw.baseAddress, maxCount, &truncated)
                    : readDescriptor(fd, raw.baseAddress, maxCount)
            }
            if n > 0 {
                if truncated != 0 {
                    throw PlatformError(
                        operation: "read(\(name))", errno: EMSGSIZE,
                        reason: "a packet was longer than the \(maxCount)-byte buffer and the kernel cut it short",
                        hint: "read with maxCount of at least \(HCIUserChannel.maximumPacketSize)")
                }
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: scratch[0..<n])
                return n
            }
            if n == 0 {
                // A raw terminal with VMIN = 0 returns 0 when it is merely empty; only a hang-up is EOF.
                if kind == .terminal && !isHungUp() { throw wouldBlockOnRead() }
                buffer.removeAll(keepingCapacity: true)
                return 0
            }
            let code = currentErrno
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                throw wouldBlockOnRead()
            case EIO where kind == .terminal:
                // The other end of a PTY closed, or a USB serial adapter went away.
                buffer.removeAll(keepingCapacity: true)
                return 0
            case ECONNRESET:
                throw .system("read(\(name))", errno: code, hint: "the peer reset the connection")
            case ENETDOWN, ENODEV, ENXIO:
                throw .system("read(\(name))", errno: code, hint: "the device went away (unplugged, powered off or reset)")
            default:
                throw .system("read(\(name))", errno: code)
            }
        }
    }

    public func write(_ bytes: [UInt8]) throws(PlatformError) {
        guard fileDescriptor >= 0 else { throw .system("write(\(name))", errno: EBADF, hint: "the transport is closed") }
        guard !bytes.isEmpty else { return }
        let deadline = SystemClock.monotonicNow() + writeTimeout
        var offset = 0
        while offset < bytes.count {
            let fd = fileDescriptor
            let isSocket = kind == .streamSocket || kind == .packetSocket
            let n = bytes.withUnsafeBytes { raw in
                let start = raw.baseAddress! + offset
                return isSocket ? vigil_send(fd, start, raw.count - offset) : writeDescriptor(fd, start, raw.count - offset)
            }
            if n > 0 {
                offset += n
                continue
            }
            let code = n < 0 ? currentErrno : EAGAIN
            switch code {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS:
                try waitUntilWritable(before: deadline, written: offset, of: bytes.count)
            case EPIPE, ECONNRESET:
                throw .system("write(\(name))", errno: code, hint: "the peer closed the connection")
            default:
                throw .system("write(\(name))", errno: code)
            }
        }
    }

    /// Waits for POLLOUT, at most until `deadline`: a peer that stops reading must not hang Vigil.
    private func waitUntilWritable(before deadline: MonotonicInstant, written: Int, of total: Int) throws(PlatformError) {
        while true {
            let now = SystemClock.monotonicNow()
            if now >= deadline {
                throw PlatformError(
                    operation: "write(\(name))", errno: ETIMEDOUT,
                    reason: "only \(written) of \(total) bytes went out within \(writeTimeout)",
                    hint: "the other end is not reading")
            }
            var entry = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
            let result = poll(&entry, 1, PollLoop.timeoutMilliseconds(from: now, until: deadline))
            if result > 0 { return }  // writable, or an error the next write will report
            if result < 0 && currentErrno != EINTR { throw .fromErrno("poll(\(name), POLLOUT)") }
        }
    }

    /// Whether poll reports a hang-up right now (a terminal's way of saying end of stream).
    private func isHungUp() -> Bool {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        return entry.revents & Int16(POLLHUP | POLLERR) != 0
    }

    private func wouldBlockOnRead() -> PlatformError {
        .system("read(\(name))", errno: EAGAIN, hint: "nothing available yet: read after PollLoop reports the descriptor readable")
    }
}

// Free functions, so the transport's own `read`/`write`/`close` methods do not shadow the C ones.
func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
func writeDescriptor(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
func closeDescriptor(_ fd: Int32) {
    // Linux releases the descriptor even when close reports EINTR, so never retry.
    _ = close(fd)
}
