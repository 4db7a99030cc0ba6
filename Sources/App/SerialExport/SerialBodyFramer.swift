/// The body framing of the serial protocol, sending side: dot-stuffing as in SMTP (RFC 5321
/// §4.5.2) and POP3 (RFC 1939 §3). Body bytes pass through unchanged except that a line
/// starting with `.` gets one more `.` in front; the body ends with a line `.` (success) or
/// `.ERR <reason>` (aborted). Works across chunk boundaries: it remembers whether the next
/// byte starts a line.
struct SerialBodyFramer {
    private var atLineStart = true

    mutating func stuff(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        // A line at a time: only a line's first byte can need stuffing.
        var start = bytes.startIndex
        while start < bytes.endIndex {
            if atLineStart && bytes[start] == 0x2E { out.append(0x2E) }
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.endIndex
            out += bytes[start..<end]
            atLineStart = bytes[end - 1] == 0x0A
            start = end
        }
        return out
    }

    /// The terminating line: `.` or `.ERR <reason>`, after a CRLF if the body did not end a line
    /// (our exporters and the report always end with a newline, so this is a safety net).
    mutating func end(error: String? = nil) -> [UInt8] {
        var out: [UInt8] = atLineStart ? [] : [0x0D, 0x0A]
        out += Array(("." + (error.map { "ERR " + $0 } ?? "") + "\r\n").utf8)
        atLineStart = true
        return out
    }
}
