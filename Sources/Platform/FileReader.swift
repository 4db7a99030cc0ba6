#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Reads a file front to back in large chunks (1 MiB), so replaying a big btsnoop capture
/// costs one system call per megabyte rather than two per record.
public final class FileReader {
    public static let defaultChunkSize = 1 << 20

    public let path: String
    /// Bytes handed out so far: the file offset of the next byte `read` returns.
    public private(set) var offset = 0

    private var fileDescriptor: Int32
    private var chunk: [UInt8]
    private var start = 0
    private var end = 0
    private var reachedEnd = false

    public init(path: String, chunkSize: Int = FileReader.defaultChunkSize) throws(PlatformError) {
        guard chunkSize > 0 else { throw PlatformError(operation: "open(\(path))", errno: EINVAL, reason: "chunkSize must be at least 1") }
        let fd = vigil_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { throw .fromErrno("open(\(path))", hint: FileSystem.hint(forErrno:)) }
        self.path = path
        self.fileDescriptor = fd
        self.chunk = [UInt8](repeating: 0, count: chunkSize)
    }

    deinit { close() }

    /// Up to `count` bytes; fewer only at end of file, and empty once the file is exhausted.
    public func read(upToCount count: Int) throws(PlatformError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(0, count))
        while bytes.count < count {
            if start == end, try !refill() { break }
            let take = min(count - bytes.count, end - start)
            bytes.append(contentsOf: chunk[start..<(start + take)])
            start += take
            offset += take
        }
        return bytes
    }

    /// Exactly `count` bytes; nil when the file ended exactly here. A file that ends part-way
    /// through (a capture cut off by a power loss) throws, saying where.
    public func readExactly(_ count: Int) throws(PlatformError) -> [UInt8]? {
        let at = offset
        let bytes = try read(upToCount: count)
        if bytes.isEmpty && count > 0 { return nil }
        guard bytes.count == count else {
            throw PlatformError(
                operation: "read(\(path))", errno: 0,
                reason: "the file ends \(bytes.count) bytes into a \(count)-byte item at offset \(at)",
                hint: "the file was cut short (written while power was lost?)")
        }
        return bytes
    }

    /// Whether every byte has been read.
    public func isAtEnd() throws(PlatformError) -> Bool {
        if start < end { return false }
        return try !refill()
    }

    public func close() {
        guard fileDescriptor >= 0 else { return }
        closeDescriptor(fileDescriptor)
        fileDescriptor = -1
    }

    /// Reads the next chunk; false at end of file.
    private func refill() throws(PlatformError) -> Bool {
        if reachedEnd { return false }
        guard fileDescriptor >= 0 else { throw .system("read(\(path))", errno: EBADF, hint: "the reader is closed") }
        while true {
            let fd = fileDescriptor
            let n = chunk.withUnsafeMutableBytes { readDescriptor(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                start = 0
                end = n
                return true
            }
            if n == 0 {
                reachedEnd = true
                return false
            }
            if currentErrno != EINTR { throw .fromErrno("read(\(path))") }
        }
    }
}
