/// Assembles request lines from serial bytes, tolerant of what terminal programs send: CR, LF
/// or CRLF all end a line (CRLF counts once), backspace (0x08) and DEL (0x7F) erase the last
/// byte, blank lines are ignored. A line longer than `maximumLength` bytes is answered with
/// one error and discarded up to its end, so a stuck key or line noise cannot grow memory.
struct SerialLineReader {
    enum Line: Equatable {
        case line(String)
        case tooLong
    }

    let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    private var lastWasCR = false

    init(maximumLength: Int) { self.maximumLength = maximumLength }

    mutating func receive(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        for byte in bytes {
            defer { lastWasCR = byte == 0x0D }
            switch byte {
            case 0x0A where lastWasCR:
                continue
            case 0x0A, 0x0D:
                if discarding {
                    discarding = false
                } else if !buffer.isEmpty {
                    lines.append(.line(String(decoding: buffer, as: UTF8.self)))
                }
                buffer.removeAll(keepingCapacity: true)
            case 0x08, 0x7F:
                if !buffer.isEmpty { buffer.removeLast() }
            default:
                guard !discarding else { continue }
                if buffer.count == maximumLength {
                    discarding = true
                    buffer.removeAll(keepingCapacity: true)
                    lines.append(.tooLong)
                } else {
                    buffer.append(byte)
                }
            }
        }
        return lines
    }
}
