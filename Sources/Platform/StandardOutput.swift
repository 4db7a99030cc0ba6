#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard output for `--json` streams: flushed after each batch so a script reading a pipe
/// sees each event as it happens, not when a 4 KiB buffer fills.
public enum StandardOutput {
    public static func flush() { fflush(nil) }  // nil flushes every output stream, stdout included
}
