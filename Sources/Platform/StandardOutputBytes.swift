/// Raw bytes to standard output (an export piped to another program): no String round trip,
/// so CSV's CRLF and any UTF-8 pass unchanged, and a closed pipe is an error, not a crash.
public enum StandardOutputBytes {
    public static func write(_ bytes: [UInt8]) throws(PlatformError) {
        try writeAll(1, bytes, name: "standard output")
    }
}
