import Clocks

/// `GET /report` (docs/web.md "Routes"): the clinician's report needs the history's rows, so the
/// supervisor asks the runner to make it on a thread of its own (`Supervisor.Action
/// .renderWebReport`) and answers the waiting requests when it is told the result
/// (`Supervisor.Input.webReportEnded`).
public struct WebReportRequest: Hashable, Sendable {
    /// The report's period ends here (the wall clock when it was asked for).
    public var end: WallClockTime
    public var days: Int
    public var utcOffset: Duration

    /// As `vigil report` makes it by default: 14 days.
    public static let days = 14

    public init(end: WallClockTime, days: Int = WebReportRequest.days, utcOffset: Duration) {
        self.end = end
        self.days = days
        self.utcOffset = utcOffset
    }
}

/// What the runner made of a `WebReportRequest`.
public enum WebReportResult: Hashable, Sendable {
    /// The report as an HTML page (`ReportFormat.html`).
    case rendered(html: String)
    /// Why there is none, in a sentence for the page.
    case failed(String)
}
