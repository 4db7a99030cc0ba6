import Clocks
import Web

/// `GET /report`: made by the runner from the history on a thread of its own, one at a time;
/// requests that come meanwhile wait for the same report, up to `maximumReportWaiting`.
extension Supervisor {
    /// Browsers waiting for the one report being made; more are told to try again.
    static let maximumReportWaiting = 8

    mutating func askForReport(on id: WebConnection, at now: ClockReadings) {
        guard historyIsOpen else {
            return respondWeb(id, unavailable("The report is made from the history, and the history is not open."), at: now)
        }
        guard now.wall >= ApplianceAlarms.earliestBelievableTime else {
            return respondWeb(id, unavailable("The clock is not set, so the last 14 days cannot be found."), at: now)
        }
        if var waiting = website!.reportWaiting {
            guard waiting.count < Self.maximumReportWaiting else {
                return respondWeb(id, unavailable("Reports are being made for other pages: try again in a moment."), at: now)
            }
            waiting.append(id)
            website!.reportWaiting = waiting
            return
        }
        website!.reportWaiting = [id]
        actions.append(.renderWebReport(WebReportRequest(end: now.wall, utcOffset: configuration.utcOffset)))
        log(.info, "web: making the report for the page")
    }

    mutating func webReportEnded(_ result: WebReportResult, at now: ClockReadings) {
        guard website != nil, let waiting = website!.reportWaiting else { return }
        website!.reportWaiting = nil
        let response: HTTP.Response
        switch result {
        case let .rendered(html):
            response = HTTP.Response.html(html).setting("Content-Security-Policy", Website.reportPolicy)
        case let .failed(reason):
            log(.error, "web: the report could not be made: \(reason)")
            response = unavailable("The report could not be made: \(reason)")
        }
        for id in waiting { respondWeb(id, response, at: now) }
        serveWeb(at: now)
    }

    /// 503 with a sentence for the page.
    private func unavailable(_ sentence: String) -> HTTP.Response {
        .text(sentence + "\n", status: .serviceUnavailable)
    }
}
