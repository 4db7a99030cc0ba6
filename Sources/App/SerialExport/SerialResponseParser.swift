/// The client side of the serial export protocol (`vigil export --serial /dev/ttyACM0 ...`),
/// sans-IO: the shell writes `request(_:)`, feeds what it reads to `receive`, writes `.body`
/// bytes to the output file and stops at `.finished` or `.failed`. See `SerialExportSession`
/// for the framing.
///
/// Lines before the answer's `OK`/`ERR` are skipped: the tail of an earlier, interrupted answer
/// or a terminal's echo. (A client may send a bare CRLF first to end any half-typed line.)
public struct SerialResponseParser {
    public enum Event: Equatable, Sendable {
        /// The `OK` line, without `OK `: e.g. `export csv`.
        case started(String)
        /// Body bytes, unstuffed, line endings as sent.
        case body([UInt8])
        /// The body is complete.
        case finished
        /// An `ERR` answer, or a body cut short by `.ERR`; the reason.
        case failed(String)
    }

    /// The longest line the client holds (a report's chart path is a few kB; a year of CSV is
    /// many short lines).
    public static let maximumLineLength = 1 << 20

    private enum State { case awaitingStatus, inBody, done }
    private var state = State.awaitingStatus
    private var line: [UInt8] = []

    public init() {}

    /// A command line as the session expects it.
    public static func request(_ command: String) -> [UInt8] { Array((command + "\r\n").utf8) }

    /// True after `.finished` or `.failed`; later bytes are ignored.
    public var isDone: Bool { state == .done }

    public mutating func receive(_ bytes: [UInt8]) -> [Event] {
        var events: [Event] = []
        // A line at a time, not a byte at a time: a year's export is megabytes of body.
        var start = bytes.startIndex
        while start < bytes.endIndex, state != .done {
            let newline = bytes[start...].firstIndex(of: 0x0A)
            let end = newline.map { $0 + 1 } ?? bytes.endIndex
            line += bytes[start..<end]
            start = end
            if line.count - (newline == nil ? 0 : 1) > Self.maximumLineLength {
                events.append(.failed("line longer than \(Self.maximumLineLength) bytes"))
                state = .done
            } else if newline != nil {
                handleLine(&events)
                line.removeAll(keepingCapacity: true)
            }
        }
        // Merge this chunk's body pieces into one event, so a caller writes once per read.
        var merged: [Event] = []
        for event in events {
            if case let .body(more) = event, case let .body(previous)? = merged.last {
                merged[merged.count - 1] = .body(previous + more)
            } else {
                merged.append(event)
            }
        }
        return merged
    }

    private mutating func handleLine(_ events: inout [Event]) {
        var text = line.dropLast()  // the LF
        if text.last == 0x0D { text = text.dropLast() }
        switch state {
        case .awaitingStatus:
            let string = String(decoding: text, as: UTF8.self)
            if string == "OK" || string.hasPrefix("OK ") {
                events.append(.started(String(string.dropFirst(3))))
                state = .inBody
            } else if string == "ERR" || string.hasPrefix("ERR ") {
                events.append(.failed(String(string.dropFirst(4))))
                state = .done
            }
        case .inBody:
            if text.first == 0x2E {
                if text.dropFirst().first == 0x2E {
                    events.append(.body(Array(line.dropFirst())))
                } else if text.count == 1 {
                    events.append(.finished)
                    state = .done
                } else {
                    let string = String(decoding: text.dropFirst(), as: UTF8.self)
                    events.append(.failed(string.hasPrefix("ERR ") ? String(string.dropFirst(4)) : "bad control line '.\(string)'"))
                    state = .done
                }
            } else {
                events.append(.body(line))
            }
        case .done:
            break
        }
    }
}
