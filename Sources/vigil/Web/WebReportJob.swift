import App
import History
import Platform

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
