#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Environment variables (systemd passes STATE_DIRECTORY and NOTIFY_SOCKET this way).
public enum Environment {
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
