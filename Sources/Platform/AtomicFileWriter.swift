#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// A file written a piece at a time that appears at its path only when complete: an export of a
/// year is streamed in constant memory, yet a reader (or a power cut) never sees half of it.
///
/// Like `AtomicFile`, but streaming: the bytes go to a temporary file beside the target (rename
/// is atomic only within one file system); `commit()` fsyncs it, renames it over the target and
/// fsyncs the directory. `abandon()` (or deinit without a commit) removes the temporary file.
public final class AtomicFileWriter {
    public let path: String
    /// Where the bytes go until `commit()`.
    public let temporaryPath: String
    private var writer: FileWriter?
    private var committed = false

    /// Creates the temporary file (exclusively, so two exports to one path cannot mix).
    public init(path: String, mode: UInt32 = 0o644) throws(PlatformError) {
        self.path = path
        let (directory, base) = AtomicFile.split(path)
        guard !base.isEmpty else { throw PlatformError(operation: "write(\(path))", errno: EISDIR, reason: "the path names a directory, not a file") }
        var candidate = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            candidate = "\(directory)/.\(base).\(UInt32.random(in: 0...UInt32.max)).tmp"
            fd = vigil_open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 || currentErrno != EEXIST { break }
        }
        guard fd >= 0 else { throw .fromErrno("open(\(candidate))", hint: FileSystem.hint(forErrno:)) }
        closeDescriptor(fd)
        temporaryPath = candidate
        do {
            writer = try FileWriter(path: candidate, mode: mode, truncate: true)
        } catch {
            _ = unlink(candidate)
            throw error
        }
    }

    deinit { if !committed { abandon() } }

    /// Appends `bytes` (buffered: a full disk may only show at the next flush or at `commit`).
    public func write(_ bytes: [UInt8]) throws(PlatformError) {
        guard let writer else { throw .system("write(\(path))", errno: EBADF, hint: "the export was already finished or abandoned") }
        try writer.write(bytes)
    }

    /// Bytes written so far.
    public var size: Int { writer?.size ?? 0 }

    /// Syncs the temporary file, renames it to `path` and syncs the directory. On failure the
    /// temporary file is removed and `path` is untouched.
    public func commit() throws(PlatformError) {
        guard let writer else { throw .system("rename(\(temporaryPath), \(path))", errno: EBADF, hint: "the export was already finished or abandoned") }
        do throws(PlatformError) {
            try writer.close()
            self.writer = nil
            if rename(temporaryPath, path) != 0 { throw PlatformError.fromErrno("rename(\(temporaryPath), \(path))", hint: FileSystem.hint(forErrno:)) }
            committed = true
            try AtomicFile.syncDirectory(AtomicFile.split(path).directory)
        } catch {
            if !committed { abandon() }
            throw error
        }
    }

    /// Drops what was written: the target keeps its old contents (or stays absent).
    public func abandon() {
        try? writer?.close()
        writer = nil
        _ = unlink(temporaryPath)
    }
}
