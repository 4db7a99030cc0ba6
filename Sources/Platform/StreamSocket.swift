#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// What a poll loop does to any connected stream socket (TCP or unix) without blocking.
public enum StreamSocket {
    /// Writes what a non-blocking socket takes now and returns how many bytes (0: it is full,
    /// try when poll says writable). MSG_NOSIGNAL: a client that went away is EPIPE, never a
    /// SIGPIPE that would kill the daemon.
    public static func send(_ fileDescriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(PlatformError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let n = bytes.withUnsafeBytes { vigil_send(fileDescriptor, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let code = currentErrno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw .system("send(fd \(fileDescriptor))", errno: code)
            }
        }
    }

    /// Ends this side's sending (a FIN after what is queued) while reading goes on: how an HTTP
    /// server closes a connection without the peer seeing a reset for its last request.
    public static func shutdownWrite(_ fileDescriptor: Int32) throws(PlatformError) {
        if shutdown(fileDescriptor, Int32(SHUT_WR)) != 0 {
            let code = currentErrno
            if code != ENOTCONN { throw .system("shutdown(fd \(fileDescriptor), SHUT_WR)", errno: code) }
        }
    }
}
