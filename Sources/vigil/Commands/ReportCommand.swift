import App
import ArgumentParser
import Clocks
import History
import Platform

/// `vigil report`: the clinician's report over the last days: consensus CGM metrics,
/// the ambulatory glucose profile and daily charts, as an SVG or an HTML page (by the output's
/// extension), written atomically.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the glucose report (time in ranges, GMI, CV, AGP, daily charts) as SVG or HTML.",
        discussion: "Exit codes: 0 written, 1 runtime failure (no history, I/O), 64 usage error, 78 configuration error.")

    @Option(help: "Days the report covers, ending now (or at --end).")
    var days: Int = 14

    @Option(name: [.short, .customLong("output")], help: "The report file: FILE.svg or FILE.html.")
    var output: String

    @Option(help: "End of the period instead of now (ISO 8601), for a report of a past fortnight.")
    var end: String?

    @OptionGroup var history: HistoryOptions

    func validate() throws {
        guard (1...SerialCommand.maximumReportDays).contains(days) else {
            throw ValidationError("--days must be from 1 to \(SerialCommand.maximumReportDays)")
        }
        guard ReportFormat(fileName: output) != nil else { throw ValidationError("-o must name a .svg or .html file") }
        if let end {
            do { _ = try ISO8601.parse(end, defaultOffset: .zero) } catch { throw ValidationError("--end: \(error)") }
        }
    }

    func run() throws {
        guard let format = ReportFormat(fileName: output) else { throw ExitCode(64) }
        let (database, utcOffset) = try history.resolve()
        let endTime = try end.map { try ISO8601.parse($0, defaultOffset: utcOffset) } ?? SystemClock.wallNow()
        let store = try HistoryOptions.openStore(path: database, command: "report")
        var source = HistoryPageSource(store: store)
        do {
            let report = try GlucoseReport(from: &source, end: endTime, days: days, utcOffset: utcOffset)
            try AtomicFile.write(path: output, bytes: Array(format.render(report).utf8), mode: 0o644)
            print("wrote \(output): \(days) days to \(ISO8601.string(endTime, utcOffset: utcOffset))")
        } catch {
            StandardError.write("vigil report: \(error)")
            throw ExitCode(1)
        }
    }
}
