import Clocks
import Testing
@testable import App

@Suite struct SerialCommandTests {
    static let offset = Duration.seconds(3600)

    @Test(arguments: [
        ("HELP", SerialCommand.help),
        ("help", .help),
        ("  Status\t", .status),
        ("EXPORT csv", .export(.csv, .all)),
        ("export NIGHTSCOUT 2026-11-22", .export(.nightscout, ExportFilter(since: WallClockTime(secondsSinceEpoch: 1_795_302_000)))),
        ("EXPORT json - 2026-11-22T00:00:00Z", .export(.json, ExportFilter(until: WallClockTime(secondsSinceEpoch: 1_795_305_600)))),
        ("EXPORT ndjson 2026-11-21T23:00Z 2026-11-22T00:00:00+00:00",
         .export(.ndjson, ExportFilter(since: WallClockTime(secondsSinceEpoch: 1_795_302_000), until: WallClockTime(secondsSinceEpoch: 1_795_305_600)))),
        ("REPORT", .report(.svg, days: 14)),
        ("REPORT html", .report(.html, days: 14)),
        ("report 30 HTML", .report(.html, days: 30)),
        ("REPORT svg 7", .report(.svg, days: 7)),
    ])
    func parses(_ line: String, _ command: SerialCommand) throws {
        // 2026-11-22 local at +01:00 is 2026-11-21T23:00Z = 1795302000 s (Python datetime).
        #expect(try SerialCommand(parsing: line, utcOffset: Self.offset) == command)
    }

    @Test(arguments: [
        ("", SerialCommand.ParseError.unknownCommand("")),
        ("EXPORTS csv", .unknownCommand("EXPORTS")),
        ("STATUS now", .tooManyArguments(command: "STATUS")),
        ("EXPORT", .missingFormat),
        ("EXPORT tsv", .unknownFormat("tsv")),
        ("EXPORT csv a b c", .tooManyArguments(command: "EXPORT")),
        ("EXPORT csv 2026-13-01", .badTime("2026-13-01", .outOfRange(field: "month", value: 13))),
        ("EXPORT csv - soon", .badTime("soon", .malformed("soon"))),
        ("EXPORT csv 2026-11-22 2026-11-22", .emptyWindow),
        ("REPORT 0", .badDays("0")),
        ("REPORT 367", .badDays("367")),
        ("REPORT -3", .badDays("-3")),
        ("REPORT pdf", .tooManyArguments(command: "REPORT")),
        ("REPORT svg html", .tooManyArguments(command: "REPORT")),
        ("REPORT 7 7", .tooManyArguments(command: "REPORT")),
    ])
    func rejects(_ line: String, _ error: SerialCommand.ParseError) {
        #expect(throws: error) { try SerialCommand(parsing: line, utcOffset: Self.offset) }
    }

    @Test func defaultReportDaysComeFromTheConfiguration() throws {
        #expect(try SerialCommand(parsing: "REPORT", utcOffset: .zero, defaultReportDays: 90) == .report(.svg, days: 90))
    }
}
