#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Replaces a file so that after a power cut it holds either the old or the new contents, never
/// a mix or nothing: bonds (keys) and configuration on an SD card that may lose power anytime.
///
/// The classic sequence: write a temporary file in the same directory (rename is atomic only
/// within one file system), fsync it, set its mode, rename it over the target, then fsync the
/// directory so the rename itself is on disk.
public enum AtomicFile {
    /// Atomically replaces (or creates) `path` with `bytes`, with permissions `mode` exactly
    /// (not reduced by the umask): 0600 for bonds, which hold long-term keys.
    /// `owner` (user and group ids) is given to the new file before the rename: replacing a file
    /// another user reads (a token the service's group reads) keeps it readable to them.
    public static func write(path: String, bytes: [UInt8], mode: UInt32 = 0o600, owner: (user: UInt32, group: UInt32)? = nil) throws(PlatformError) {
        let (directory, base) = split(path)
        guard !base.isEmpty else { throw PlatformError(operation: "write(\(path))", errno: EISDIR, reason: "the path names a directory, not a file") }

        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temporary = "\(directory)/.\(base).\(UInt32.random(in: 0...UInt32.max)).tmp"
            fd = vigil_open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 || currentErrno != EEXIST { break }
        }
        guard fd >= 0 else { throw .fromErrno("open(\(temporary))", hint: FileSystem.hint(forErrno:)) }

        var renamed = false
        defer {
            if fd >= 0 { closeDescriptor(fd) }
            if !renamed { _ = unlink(temporary) }
        }
        try writeAll(fd, bytes, name: temporary)
        if fsync(fd) != 0 { throw .fromErrno("fsync(\(temporary))") }
        if let owner, fchown(fd, uid_t(owner.user), gid_t(owner.group)) != 0 {
            throw .fromErrno("fchown(\(temporary), \(owner.user):\(owner.group))")
        }
        if fchmod(fd, mode_t(mode)) != 0 { throw .fromErrno("fchmod(\(temporary), \(String(mode, radix: 8)))") }
        let closed = close(fd)
        fd = -1
        if closed != 0 { throw .fromErrno("close(\(temporary))") }
        if rename(temporary, path) != 0 { throw .fromErrno("rename(\(temporary), \(path))") }
        renamed = true
        try syncDirectory(directory)
    }

    /// fsync on the directory makes the new directory entry durable.
    static func syncDirectory(_ directory: String) throws(PlatformError) {
        let fd = vigil_open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw .fromErrno("open(\(directory))") }
        defer { closeDescriptor(fd) }
        // Some file systems cannot fsync a directory (EINVAL); the rename is still atomic there.
        if fsync(fd) != 0 && currentErrno != EINVAL { throw .fromErrno("fsync(\(directory))") }
    }

    /// ("dir", "name") for "dir/name"; "." for a bare name.
    static func split(_ path: String) -> (directory: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

/// Writes every byte to a blocking descriptor, across partial writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: [UInt8], name: String) throws(PlatformError) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { writeDescriptor(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n > 0 {
            offset += n
        } else if n < 0 && currentErrno != EINTR {
            throw .fromErrno("write(\(name))", hint: FileSystem.hint(forErrno:))
        }
    }
}
