#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Plain file operations with errors that name the path (configuration, bonds, btsnoop files).
public enum FileSystem {
    /// The whole file. Reads until end of file rather than trusting the size stat reports, so
    /// /proc files (size 0) read correctly too.
    ///
    /// A FIFO is refused at once: opening one blocks until a writer comes, and reading a
    /// configuration must never hang the appliance before its alarms run. It is opened
    /// non-blocking to find out, and everything else is read blocking, as before.
    public static func readFile(path: String) throws(PlatformError) -> [UInt8] {
        let fd = vigil_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0)
        guard fd >= 0 else { throw .fromErrno("open(\(path))", hint: hint(forErrno:)) }
        defer { closeDescriptor(fd) }
        var info = stat()
        var capacity = 4096
        if fstat(fd, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFIFO {
                throw PlatformError(operation: "open(\(path))", errno: 0, reason: "it is a FIFO (named pipe), not a file",
                                    hint: "reading it would wait for a writer; give the path of a regular file")
            }
            if info.st_size > 0 { capacity = Int(info.st_size) + 1 }
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(4096, min(capacity, 1 << 20)))
        while true {
            let n = chunk.withUnsafeMutableBytes { readDescriptor(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
            } else if n == 0 {
                return bytes
            } else if currentErrno != EINTR {
                throw .fromErrno("read(\(path))")
            }
        }
    }

    /// Whether anything (file, directory, device, the target of a symlink) exists at `path`.
    public static func exists(path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory (following symlinks).
    public static func isDirectory(path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The permission bits of the file at `path` (following symlinks): 0o640 for `rw-r-----`.
    public static func permissions(path: String) throws(PlatformError) -> UInt32 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fromErrno("stat(\(path))", hint: hint(forErrno:)) }
        return UInt32(info.st_mode) & 0o7777
    }

    /// The user and group ids that own the file at `path` (following symlinks).
    public static func owner(path: String) throws(PlatformError) -> (user: UInt32, group: UInt32) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fromErrno("stat(\(path))", hint: hint(forErrno:)) }
        return (UInt32(info.st_uid), UInt32(info.st_gid))
    }

    /// The size in bytes of the file at `path`.
    public static func fileSize(path: String) throws(PlatformError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fromErrno("stat(\(path))", hint: hint(forErrno:)) }
        return Int(info.st_size)
    }

    /// Creates `path` and any missing parents (`mkdir -p`). New directories get `mode`
    /// (less the umask); existing ones are left as they are.
    public static func createDirectories(path: String, mode: UInt32 = 0o755) throws(PlatformError) {
        guard !path.isEmpty else { throw PlatformError(operation: "mkdir", errno: EINVAL, reason: "the path is empty") }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty || prefix.hasSuffix("/") ? String(component) : "/" + component
            if mkdir(prefix, mode_t(mode)) != 0 {
                let code = currentErrno
                if code == EEXIST && isDirectory(path: prefix) { continue }
                throw .system("mkdir(\(prefix))", errno: code == EEXIST ? ENOTDIR : code,
                              hint: code == EEXIST ? "\(prefix) exists and is not a directory" : hint(forErrno: code))
            }
        }
    }

    /// The names in directory `path` (not "." or ".."), sorted.
    public static func contentsOfDirectory(path: String) throws(PlatformError) -> [String] {
        guard let directory = opendir(path) else { throw .fromErrno("opendir(\(path))", hint: hint(forErrno:)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Renames `path` to `target` with rename(2): atomic within one file system, and a symlink
    /// is moved, not followed.
    public static func move(path: String, to target: String) throws(PlatformError) {
        guard renameFile(path, target) == 0 else { throw .fromErrno("rename(\(path), \(target))", hint: hint(forErrno:)) }
    }

    /// Removes a file or an empty directory.
    public static func remove(path: String) throws(PlatformError) {
        if unlink(path) == 0 { return }
        let code = currentErrno
        // Linux unlink says EISDIR for a directory (POSIX allows EPERM); then it is rmdir's turn.
        guard code == EISDIR || code == EPERM else { throw .system("unlink(\(path))", errno: code) }
        if rmdir(path) != 0 { throw .fromErrno("rmdir(\(path))") }
    }

    /// Removes `path` and, if it is a directory, everything in it (does not follow symlinks).
    public static func removeTree(path: String) throws(PlatformError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .fromErrno("lstat(\(path))") }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try contentsOfDirectory(path: path) { try removeTree(path: path + "/" + name) }
            if rmdir(path) != 0 { throw .fromErrno("rmdir(\(path))") }
        } else if unlink(path) != 0 {
            throw .fromErrno("unlink(\(path))")
        }
    }

    /// A new, empty, private (0700) directory under $TMPDIR or /tmp.
    public static func makeTemporaryDirectory(prefix: String = "vigil") throws(PlatformError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .fromErrno("mkdtemp(\(base))")
        }
        return String(cString: made)
    }

    static func hint(forErrno code: Int32) -> String? {
        switch code {
        case EACCES, EPERM: return "permission denied: check the owner and mode of the file and its directories"
        case EROFS: return "the file system is read-only"
        case ENOSPC: return "the disk (SD card) is full"
        default: return nil
        }
    }
}

/// rename(2) under another name: inside `FileSystem` the name finds a member first.
private func renameFile(_ path: String, _ target: String) -> Int32 { rename(path, target) }
