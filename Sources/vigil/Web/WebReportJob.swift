import App
import History
import Platform
import Clocks
import Readings

/// `GET /report`'s report (`Supervisor.Action.renderWebReport`), made as `vigil report` makes
/// it, from the history opened only to read, on a thread of its own: 14 days of rows take
/// longer to read than a loop turn may.
enum WebReportJob {
    static func start(_ request: WebReportRequest, historyAt path: String) throws(PlatformError) -> BackgroundJob<WebReportResult> {
        try BackgroundJob(name: "vigil-web-report") { _ in render(request, historyAt: path) }
    }

    static func render(_ request: WebReportRequest, historyAt path: String) -> WebReportResult {
        do {
            let store = try HistoryStore.openForReading(path: path)
            var source = HistoryPageSource(store: store)
            let report = try GlucoseReport(from: &source, end: request.end, days: request.days, utcOffset: request.utcOffset)
            return .rendered(html: ReportFormat.html.render(report))
        } catch {
            return .failed("\(error)")
        }
    }
}

extension HistorySide {
    /// Sensor glucose and meter readings since `since` (`Supervisor.Action.loadRecentGlucose`):
    /// four days are a few thousand rows, read in place once, when the history opens. A read
    /// that fails gives what it found, and the chart starts from there.
    func recentGlucose(since: WallClockTime) -> [RecordedReading] {
        guard let store else { return [] }
        var found: [RecordedReading] = []
        for kind in [Reading.Kind.glucose, .meterGlucose] {
            found += Array(store.readings(HistoryQuery(since: since, kind: kind)))
        }
        return found
    }
}
