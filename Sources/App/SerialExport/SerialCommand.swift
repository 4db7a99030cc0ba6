import Clocks

/// One request line of the serial export protocol (see `SerialExportSession` for the framing).
/// Words are separated by spaces or tabs; the command word is case-insensitive.
///
///     HELP
///     STATUS
///     EXPORT <csv|json|ndjson|nightscout> [since|-] [until|-]
///     REPORT [svg|html] [days]
///
/// `since` and `until` are ISO 8601 dates or date-times (`2026-11-01`,
/// `2026-11-01T06:00:00+01:00`); without an offset they are local time at the appliance's
/// configured UTC offset. `since` is inclusive, `until` exclusive, `-` leaves one open.
public enum SerialCommand: Equatable, Sendable {
    case help
    case status
    case export(ExportFormat, ExportFilter)
    case report(ReportFormat, days: Int)

    /// The longest report a terminal may ask for; the history keeps a year.
    public static let maximumReportDays = 366

    /// Why a line is not a command; `description` is the text after `ERR `.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case unknownCommand(String)
        case missingFormat
        case unknownFormat(String)
        case badTime(String, ISO8601.ParseError)
        case emptyWindow
        case badDays(String)
        case tooManyArguments(command: String)

        public var description: String {
            switch self {
            case let .unknownCommand(word): "unknown command '\(word)' (try HELP)"
            case .missingFormat: "EXPORT needs a format: csv, json, ndjson or nightscout"
            case let .unknownFormat(name): ExportFormat.UnknownFormat(name: name).description
            case let .badTime(_, error): "\(error)"
            case .emptyWindow: "since must be before until"
            case let .badDays(text): "'\(text)' is not a number of days from 1 to \(SerialCommand.maximumReportDays)"
            case let .tooManyArguments(command): "too many arguments for \(command) (try HELP)"
            }
        }
    }

    /// Parses one line (without its line ending). `utcOffset` dates times written without one.
    public init(parsing line: String, utcOffset: Duration, defaultReportDays: Int = 14) throws(ParseError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else { throw .unknownCommand("") }
        let arguments = Array(words.dropFirst())
        switch first.uppercased() {
        case "HELP":
            guard arguments.isEmpty else { throw .tooManyArguments(command: "HELP") }
            self = .help
        case "STATUS":
            guard arguments.isEmpty else { throw .tooManyArguments(command: "STATUS") }
            self = .status
        case "EXPORT":
            guard let name = arguments.first else { throw .missingFormat }
            guard arguments.count <= 3 else { throw .tooManyArguments(command: "EXPORT") }
            let format: ExportFormat
            do { format = try ExportFormat(parsing: name) } catch { throw .unknownFormat(name) }
            func time(_ index: Int) throws(ParseError) -> WallClockTime? {
                guard index < arguments.count, arguments[index] != "-" else { return nil }
                do { return try ISO8601.parse(arguments[index], defaultOffset: utcOffset) } catch { throw .badTime(arguments[index], error) }
            }
            let filter = ExportFilter(since: try time(1), until: try time(2))
            guard !filter.isEmpty else { throw .emptyWindow }
            self = .export(format, filter)
        case "REPORT":
            var format = ReportFormat.svg, days = defaultReportDays, sawFormat = false, sawDays = false
            for argument in arguments {
                if !sawFormat, let f = ReportFormat(rawValue: argument.lowercased()) {
                    format = f
                    sawFormat = true
                } else if !sawDays, argument.first?.isNumber == true || argument.first == "-" {
                    guard let n = Int(argument), (1...Self.maximumReportDays).contains(n) else { throw .badDays(argument) }
                    days = n
                    sawDays = true
                } else {
                    throw .tooManyArguments(command: "REPORT")
                }
            }
            self = .report(format, days: days)
        default:
            throw .unknownCommand(first)
        }
    }

    /// The body of the `HELP` answer.
    public static let helpLines = [
        "Vigil serial export (read-only). Commands, one per line:",
        "  HELP                                  this text",
        "  STATUS                                what the history holds",
        "  EXPORT <csv|json|ndjson|nightscout> [since|-] [until|-]",
        "                                        readings; times as 2026-11-01 or 2026-11-01T06:00:00+01:00",
        "  REPORT [svg|html] [days]              the clinician's report (default 14 days)",
        "Answers: 'OK ...' then lines, ended by a line '.' ('.ERR ...' if it failed); or one 'ERR ...' line.",
        "Body lines that start with '.' are sent with an extra '.' in front.",
    ]
}
