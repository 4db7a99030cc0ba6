import Clocks
import Readings

/// The appliance side of the serial export protocol, sans-IO: the shell feeds it the
/// bytes read from the tty (`/dev/ttyGS0`, a USB-serial adapter) and writes what `nextOutput`
/// returns. Read-only: no command changes anything.
///
/// ## The protocol
/// Requests are lines (see `SerialCommand`), ended by CR, LF or CRLF, at most
/// `maximumLineLength` bytes. Every request gets exactly one answer, in order:
///
///     ERR <reason>CRLF                    one line: unknown command, bad argument, line too long
///
///     OK <what>CRLF                       e.g. "OK export csv", "OK report svg 14 days", "OK help"
///     <body, any bytes, dot-stuffed>      a body line starting with "." is sent as ".."
///     .CRLF                               end: the body is complete
///     .ERR <reason>CRLF                   or: the body was cut short (history read failed)
///
/// So a client knows where an export ends without knowing its length first (a year is streamed,
/// never measured): after `OK`, it reads lines until one that is `.` or starts with `.` but not
/// `..`; it removes one leading `.` from the others. Body bytes, line endings included
/// (CSV's CRLF, JSON's LF), arrive unchanged. `SerialResponseParser` is that client.
///
/// With `echo` on (the default) what is typed is echoed while no answer streams, so plain
/// terminal programs (screen, minicom, picocom, PuTTY) show the command; clients skip it.
///
/// ## Streaming and disconnects
/// `nextOutput` produces at most one page of readings per call, asking the source for it only
/// then; the shell calls it again when the tty can take more. A disconnect needs no handling:
/// the shell drops the session, and nothing is pending anywhere. Commands that arrive during
/// an export wait their turn (at most `maximumQueuedCommands`; more are answered `ERR busy`).
public struct SerialExportSession {
    public struct Configuration: Equatable, Sendable {
        /// The longest request line, in bytes, without its line ending.
        public var maximumLineLength: Int
        /// Local time for export timestamps, arguments without an offset, and report days.
        public var utcOffset: Duration
        /// Readings asked of the source per `nextOutput` call.
        public var pageSize: Int
        /// `REPORT` without a number of days.
        public var defaultReportDays: Int
        public var maximumQueuedCommands: Int
        /// Echo what is typed (CR or LF as CRLF, backspace as "\b \b") while no answer is being
        /// streamed, so a person in a terminal program without local echo sees the command.
        /// Never during an answer: the body stays exactly the export. `SerialResponseParser`
        /// skips the echoed line, so clients work either way.
        public var echo: Bool

        public init(maximumLineLength: Int = 256, utcOffset: Duration = .zero, pageSize: Int = 1000,
                    defaultReportDays: Int = 14, maximumQueuedCommands: Int = 8, echo: Bool = true) {
            self.maximumLineLength = maximumLineLength
            self.utcOffset = utcOffset
            self.pageSize = pageSize
            self.defaultReportDays = defaultReportDays
            self.maximumQueuedCommands = maximumQueuedCommands
            self.echo = echo
        }
    }

    public let configuration: Configuration
    private var reader: SerialLineReader
    private var queue: [Pending] = []
    private var answer: Answer?
    private var echoed: [UInt8] = []
    private var echoedCR = false

    private enum Pending {
        case command(SerialCommand, wallNow: WallClockTime)
        case error(String)
    }

    /// The answer being streamed.
    private enum Answer {
        case exporting(ExportStream, SerialBodyFramer)
        case gatheringReport(ReportFormat, days: Int, end: WallClockTime, [RecordedReading], after: ReadingCursor?, SerialBodyFramer)
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        reader = SerialLineReader(maximumLength: configuration.maximumLineLength)
    }

    /// Bytes read from the tty. `wallNow` is the wall clock when they arrived: it ends the
    /// period of a `REPORT` among them.
    public mutating func receive(_ bytes: [UInt8], wallNow: WallClockTime) {
        if configuration.echo && answer == nil { echo(bytes) }
        for line in reader.receive(bytes) {
            let pending: Pending
            switch line {
            case .tooLong:
                pending = .error("line too long (at most \(configuration.maximumLineLength) bytes)")
            case let .line(text):
                do {
                    pending = .command(try SerialCommand(parsing: text, utcOffset: configuration.utcOffset,
                                                         defaultReportDays: configuration.defaultReportDays), wallNow: wallNow)
                } catch {
                    pending = .error(error.description)
                }
            }
            if queue.count < configuration.maximumQueuedCommands {
                queue.append(pending)
            } else if queue.count == configuration.maximumQueuedCommands {
                // One slot past the limit holds the single "busy" answer; further lines vanish.
                queue.append(.error("busy: too many commands waiting, later ones dropped"))
            }
        }
    }

    /// True when `nextOutput` has something to write: the shell polls the tty for writing only then.
    public var hasOutput: Bool { answer != nil || !queue.isEmpty || !echoed.isEmpty }

    /// The next bytes to write: a whole short answer, or the next piece of a streamed one (at
    /// most one page of readings). May be empty while a report gathers its pages, so the shell
    /// goes by `hasOutput`, not by an empty result, to know whether to call again.
    public mutating func nextOutput<Source: SerialExportSource>(from source: inout Source) -> [UInt8] {
        if !echoed.isEmpty {
            defer { echoed.removeAll() }
            return echoed
        }
        if let answer {
            return continueAnswer(answer, from: &source)
        }
        guard !queue.isEmpty else { return [] }
        switch queue.removeFirst() {
        case let .error(reason):
            return Self.line("ERR " + reason)
        case .command(.help, _):
            return Self.listing("OK help", SerialCommand.helpLines)
        case .command(.status, _):
            do {
                return Self.listing("OK status", try source.statusLines())
            } catch {
                return Self.line("ERR status unavailable: \(error)")
            }
        case let .command(.export(format, filter), _):
            // Nothing is read yet: the first page waits until the client can take it.
            answer = .exporting(ExportStream(format: format, filter: filter, utcOffset: configuration.utcOffset, pageSize: configuration.pageSize),
                                SerialBodyFramer())
            return Self.line("OK export \(format.rawValue)")
        case let .command(.report(format, days), wallNow):
            answer = .gatheringReport(format, days: days, end: wallNow, [], after: nil, SerialBodyFramer())
            return Self.line("OK report \(format.rawValue) \(days) days")
        }
    }

    private mutating func continueAnswer<Source: SerialExportSource>(_ current: Answer, from source: inout Source) -> [UInt8] {
        switch current {
        case .exporting(var stream, var framer):
            do {
                guard let piece = try stream.next(from: &source) else {
                    answer = nil
                    return framer.end()
                }
                let out = framer.stuff(piece)
                answer = .exporting(stream, framer)
                return out
            } catch {
                answer = nil
                return framer.end(error: "history read failed: \(error)")
            }
        case .gatheringReport(let format, let days, let end, var readings, let cursor, var framer):
            let filter = GlucoseReport.filter(end: end, days: days)
            do {
                let page = try source.page(matching: filter, after: cursor, limit: configuration.pageSize)
                readings += page.readings
                if let next = page.next {
                    answer = .gatheringReport(format, days: days, end: end, readings, after: next, framer)
                    return []
                }
            } catch {
                answer = nil
                return framer.end(error: "history read failed: \(error)")
            }
            answer = nil
            let report = GlucoseReport(readings: readings, end: end, days: days, utcOffset: configuration.utcOffset)
            return framer.stuff(Array(format.render(report).utf8)) + framer.end()
        }
    }

    private mutating func echo(_ bytes: [UInt8]) {
        for byte in bytes {
            defer { echoedCR = byte == 0x0D }
            switch byte {
            case 0x0A where echoedCR: continue  // the LF of a CRLF: its line end is already echoed
            case 0x0A, 0x0D: echoed += [0x0D, 0x0A]
            case 0x08, 0x7F: echoed += [0x08, 0x20, 0x08]
            case 0x20..<0x7F, 0x80...: echoed.append(byte)
            default: break  // other control bytes are not typed text
            }
            // Echo is a courtesy: past a line's worth of backlog it is dropped, never grown.
            if echoed.count > configuration.maximumLineLength + 16 { echoed.removeFirst(echoed.count - configuration.maximumLineLength - 16) }
        }
    }

    static func line(_ text: String) -> [UInt8] { Array((text + "\r\n").utf8) }

    static func listing(_ status: String, _ lines: [String]) -> [UInt8] {
        var framer = SerialBodyFramer()
        return line(status) + framer.stuff(Array(lines.map { $0 + "\r\n" }.joined().utf8)) + framer.end()
    }
}
