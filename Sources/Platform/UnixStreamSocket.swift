#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Unix-domain stream sockets (unix(7)): how `vigil status` reaches the running daemon. A file
/// in the file system, so who may connect is decided by its mode and its directory's
/// (systemd's RuntimeDirectory=vigil with mode 0750, the socket 0660: the vigil group).
public enum UnixStreamSocket {
    /// A listening socket at a path, non-blocking: register it with `PollLoop` and `accept()`
    /// when it is readable.
    public final class Listener {
        public private(set) var fileDescriptor: Int32
        public let path: String
        /// The file we bound, so `close()` removes it only if it is still ours: another daemon
        /// may have replaced it meanwhile.
        private let device: UInt64
        private let inode: UInt64

        private init(fileDescriptor: Int32, path: String, device: UInt64, inode: UInt64) {
            self.fileDescriptor = fileDescriptor
            self.path = path
            self.device = device
            self.inode = inode
        }

        deinit { close() }

        /// Binds `path`, sets its `mode` and listens. A socket file already there with nobody
        /// accepting on it (left by a daemon that was killed) is replaced. Throws, with
        /// errno EADDRINUSE, when a live listener answers on it: that is another daemon, and
        /// its socket must not be stolen. Something there that is not a socket is never
        /// removed (EEXIST). The parent directory is not created: that is systemd's
        /// RuntimeDirectory, or the caller's.
        public static func listen(path: String, mode: mode_t = 0o660, backlog: Int32 = 8) throws(PlatformError) -> Listener {
            let operation = "listen(unix:\(path))"
            let fd = vigil_stream_socket(AF_UNIX)
            guard fd >= 0 else { throw .fromErrno("socket(AF_UNIX)") }
            var succeeded = false
            defer { if !succeeded { closeDescriptor(fd) } }
            if vigil_unix_bind(fd, path) != 0 {
                let code = currentErrno
                guard code == EADDRINUSE else { throw .system(operation, errno: code, hint: bindHint(code, path: path)) }
                try removeStaleSocket(at: path, operation: operation)
                if vigil_unix_bind(fd, path) != 0 { throw .fromErrno(operation) }
            }
            var device: UInt64 = 0
            var inode: UInt64 = 0
            // Restrict the file before anyone can connect: connections need listen(), which follows.
            guard chmod(path, mode) == 0, vigil_socket_file(path, &device, &inode) == 1 else {
                let code = currentErrno
                unlink(path)
                throw .system("chmod(\(path))", errno: code)
            }
            guard systemListen(fd, backlog) == 0 else {
                let code = currentErrno
                unlink(path)
                throw .system(operation, errno: code)
            }
            succeeded = true
            return Listener(fileDescriptor: fd, path: path, device: device, inode: inode)
        }

        /// Accepts one waiting client (non-blocking, close-on-exec), or nil when none waits.
        public func accept() throws(PlatformError) -> (any ByteTransport)? {
            guard fileDescriptor >= 0 else { throw .system("accept(unix:\(path))", errno: EBADF, hint: "the listener is closed") }
            while true {
                let fd = vigil_accept(fileDescriptor)
                if fd >= 0 { return try FileDescriptorTransport(adopting: fd, kind: .streamSocket, name: "status client of \(path)") }
                let code = currentErrno
                switch code {
                case EINTR, ECONNABORTED: continue
                case EAGAIN, EWOULDBLOCK: return nil
                default: throw .system("accept(unix:\(path))", errno: code)
                }
            }
        }

        /// Stops listening and removes the socket file, if it is still the one we made.
        public func close() {
            guard fileDescriptor >= 0 else { return }
            closeDescriptor(fileDescriptor)
            fileDescriptor = -1
            var device: UInt64 = 0
            var inode: UInt64 = 0
            if vigil_socket_file(path, &device, &inode) == 1, device == self.device, inode == self.inode { unlink(path) }
        }

        /// A socket file nobody accepts on is removed; a live one is another daemon's.
        private static func removeStaleSocket(at path: String, operation: String) throws(PlatformError) {
            var device: UInt64 = 0
            var inode: UInt64 = 0
            switch vigil_socket_file(path, &device, &inode) {
            case 1: break
            case 0: throw .system(operation, errno: EEXIST, hint: "\(path) exists and is not a socket; Vigil does not remove it")
            default: throw .fromErrno(operation)
            }
            let probe: any ByteTransport
            do {
                probe = try UnixStreamSocket.connect(path: path)
            } catch {
                switch error.errno {
                case ECONNREFUSED:
                    // Nobody listens: left behind by a daemon that did not exit cleanly.
                    guard unlink(path) == 0 || currentErrno == ENOENT else { throw .fromErrno("unlink(\(path))") }
                    return
                case EAGAIN:
                    throw .system(operation, errno: EADDRINUSE, hint: "another process answers on \(path) (its queue is full)")
                default:
                    throw error
                }
            }
            probe.close()
            throw .system(operation, errno: EADDRINUSE, hint: "another process (a running vigil?) answers on \(path)")
        }

        private static func bindHint(_ code: Int32, path: String) -> String? {
            switch code {
            case ENOENT: "the directory does not exist (systemd creates /run/vigil for the service: RuntimeDirectory=vigil)"
            case EACCES, EPERM: "no permission to create \(path)"
            case ENAMETOOLONG: "a unix socket path must be shorter than 108 bytes"
            default: nil
            }
        }
    }

    /// Connects to the listener at `path`. A unix-domain connect completes or fails at once,
    /// so this never waits. The transport is non-blocking.
    public static func connect(path: String) throws(PlatformError) -> any ByteTransport {
        let fd = vigil_stream_socket(AF_UNIX)
        guard fd >= 0 else { throw .fromErrno("socket(AF_UNIX)") }
        if vigil_unix_connect(fd, path) != 0 {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("connect(unix:\(path))", errno: code, hint: connectHint(code, path: path))
        }
        return try FileDescriptorTransport(adopting: fd, kind: .streamSocket, name: "unix:\(path)")
    }

    /// `StreamSocket.send`, as the status socket's users call it.
    public static func send(_ fileDescriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(PlatformError) -> Int {
        try StreamSocket.send(fileDescriptor, bytes)
    }

    static func connectHint(_ code: Int32, path: String) -> String? {
        switch code {
        case ENOENT, ECONNREFUSED: "nothing listens on \(path)"
        case EACCES, EPERM: "no permission to connect to \(path)"
        case EAGAIN: "\(path) is not accepting more connections right now"
        case ENAMETOOLONG: "a unix socket path must be shorter than 108 bytes"
        default: nil
        }
    }
}

extension PlatformError {
    /// EADDRINUSE: another listener owns the address (for a unix socket: a live daemon).
    public var isAddressInUse: Bool { errno == EADDRINUSE }
    /// ENOENT or ECONNREFUSED on connect: nothing listens there.
    public var isNothingListening: Bool { errno == ENOENT || errno == ECONNREFUSED }
    /// ECONNRESET or EPIPE: the other end closed (on a unix socket, with our bytes unread).
    public var isConnectionReset: Bool { errno == ECONNRESET || errno == EPIPE }
    /// EACCES or EPERM: the file's mode or its directory's keeps us out.
    public var isPermissionDenied: Bool { errno == EACCES || errno == EPERM }
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
