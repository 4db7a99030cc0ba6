#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// What a USB-stick export needs to know about a mount point before writing to it, checked
/// quickly with stat and statvfs (no writes), so a missing, unmounted or read-only stick is
/// refused at once instead of filling the SD card's empty mount directory or hanging.
public struct MountedVolume: Equatable, Sendable {
    /// Why a path cannot take an export.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// Nothing at the path (the directory itself is missing).
        case missing(path: String)
        case notADirectory(path: String)
        /// The path is an ordinary directory on its parent's file system: no stick is mounted
        /// there, and writing would fill the SD card instead.
        case notAMountPoint(path: String)
        /// Mounted read-only (ST_RDONLY), or the write-protect switch is on.
        case readOnly(path: String)
        /// stat or statvfs failed.
        case inaccessible(PlatformError)

        public var description: String {
            switch self {
            case let .missing(path): "\(path) does not exist: is the stick plugged in and mounted?"
            case let .notADirectory(path): "\(path) is not a directory"
            case let .notAMountPoint(path): "nothing is mounted at \(path) (it is on the same file system as its parent): plug in and mount the stick"
            case let .readOnly(path): "\(path) is mounted read-only (write-protect switch?)"
            case let .inaccessible(error): "\(error)"
            }
        }
    }

    public var path: String
    /// Bytes an unprivileged writer may still use (f_bavail × f_frsize).
    public var availableBytes: Int

    /// Checks that `path` is a writable mount point: it exists, is a directory, lies on a
    /// different device than its parent (or is `/`), and is not mounted read-only.
    public static func inspect(path: String, requireMountPoint: Bool = true) throws(Problem) -> MountedVolume {
        var info = stat()
        if stat(path, &info) != 0 {
            if currentErrno == ENOENT { throw .missing(path: path) }
            throw .inaccessible(.fromErrno("stat(\(path))"))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notADirectory(path: path) }
        if requireMountPoint {
            var parent = stat()
            if stat(path + "/..", &parent) != 0 { throw .inaccessible(.fromErrno("stat(\(path)/..)")) }
            // Same device and a different inode: an ordinary directory. (`/` is its own parent.)
            if parent.st_dev == info.st_dev && parent.st_ino != info.st_ino { throw .notAMountPoint(path: path) }
        }
        var volume = statvfs()
        if statvfs(path, &volume) != 0 { throw .inaccessible(.fromErrno("statvfs(\(path))")) }
        if (volume.f_flag & UInt(ST_RDONLY)) != 0 { throw .readOnly(path: path) }
        return MountedVolume(path: path, availableBytes: Int(volume.f_bavail) &* Int(volume.f_frsize))
    }
}

extension FileSystem {
    /// rename(2): atomic within one file system (a directory too, when `to` is absent or empty).
    public static func rename(_ from: String, to: String) throws(PlatformError) {
        if renameEntry(from, to) != 0 { throw .fromErrno("rename(\(from), \(to))", hint: hint(forErrno:)) }
    }

    /// fsync on a directory, so the entries created or renamed in it survive a power cut.
    public static func syncDirectory(_ path: String) throws(PlatformError) {
        try AtomicFile.syncDirectory(path)
    }
}

/// The C library's rename, out of reach of `FileSystem.rename`'s own name.
private func renameEntry(_ from: String, _ to: String) -> Int32 { rename(from, to) }

/// Writes without ever waiting: what a poll loop needs to stream a long answer to a slow tty.
public enum NonBlockingWrite {
    /// Writes as much of `bytes` as the descriptor takes now (it must be O_NONBLOCK) and returns
    /// how many: 0 when it is full. Throws on any other error (EIO: the tty hung up).
    public static func write(_ fileDescriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(PlatformError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        while true {
            let n = bytes.withUnsafeBytes { writeDescriptor(fileDescriptor, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let code = currentErrno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw .system("write(fd \(fileDescriptor))", errno: code)
            }
        }
    }
}

extension PlatformError {
    /// ENOSPC: the disk or stick is full.
    public var isNoSpace: Bool { errno == ENOSPC }
    /// EROFS: the file system is mounted read-only (or went read-only after an error).
    public var isReadOnlyFileSystem: Bool { errno == EROFS }
}
