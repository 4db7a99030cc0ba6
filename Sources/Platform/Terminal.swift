#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Questions about terminals.
public enum Terminal {
    /// Whether `fd` is a terminal (colour and progress output only make sense there).
    public static func isTerminal(fd: Int32) -> Bool { isatty(fd) == 1 }
}
