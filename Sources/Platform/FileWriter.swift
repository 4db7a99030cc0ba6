#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// An append-only buffered file (the btsnoop log): many small records become few writes, and
/// `close()` flushes and fsyncs so a clean shutdown leaves a complete file on the SD card.
public final class FileWriter {
    public static let defaultBufferCapacity = 64 * 1024

    public let path: String
    /// The file's length including bytes still in the buffer (0 for a new file: write a header).
    public private(set) var size: Int

    private var fileDescriptor: Int32
    private var buffer: [UInt8] = []
    private let bufferCapacity: Int

    /// Opens `path` for appending, creating it with `mode` (less the umask) if missing; with
    /// `truncate` an existing file is emptied first.
    public init(path: String, mode: UInt32 = 0o644, truncate: Bool = false,
                bufferCapacity: Int = FileWriter.defaultBufferCapacity) throws(PlatformError) {
        let flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0)
        let fd = vigil_open(path, flags, mode)
        guard fd >= 0 else { throw .fromErrno("open(\(path))", hint: FileSystem.hint(forErrno:)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("fstat(\(path))", errno: code)
        }
        self.path = path
        self.fileDescriptor = fd
        self.size = Int(info.st_size)
        self.bufferCapacity = max(1, bufferCapacity)
        buffer.reserveCapacity(self.bufferCapacity)
    }

    /// A last-chance flush and fsync if `close()` was never called; errors here have nowhere
    /// to go, which is why callers should close explicitly.
    deinit { try? close() }

    /// Appends `bytes` to the buffer, writing it out when full.
    public func write(_ bytes: [UInt8]) throws(PlatformError) {
        guard fileDescriptor >= 0 else { throw .system("write(\(path))", errno: EBADF, hint: "the writer is closed") }
        buffer.append(contentsOf: bytes)
        size += bytes.count
        if buffer.count >= bufferCapacity { try flush() }
    }

    /// Hands buffered bytes to the kernel (they survive a crash of Vigil, not of the machine).
    public func flush() throws(PlatformError) {
        guard !buffer.isEmpty else { return }
        guard fileDescriptor >= 0 else { throw .system("write(\(path))", errno: EBADF, hint: "the writer is closed") }
        try writeAll(fileDescriptor, buffer, name: path)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and fsyncs (the bytes survive a power cut).
    public func sync() throws(PlatformError) {
        try flush()
        if fsync(fileDescriptor) != 0 { throw .fromErrno("fsync(\(path))") }
    }

    /// Flushes, fsyncs and closes. Closing twice is harmless.
    public func close() throws(PlatformError) {
        guard fileDescriptor >= 0 else { return }
        defer {
            closeDescriptor(fileDescriptor)
            fileDescriptor = -1
        }
        try sync()
    }
}
