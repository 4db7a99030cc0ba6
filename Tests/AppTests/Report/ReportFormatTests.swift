import Clocks
import Testing
@testable import App

@Suite struct ReportFormatTests {
    @Test(arguments: [("report.svg", ReportFormat?.some(.svg)), ("/tmp/Report.HTML", .html), ("a.b.html", .html), ("report.png", nil), ("svg", nil), ("report.", nil)])
    func fromFileName(_ name: String, _ format: ReportFormat?) {
        #expect(ReportFormat(fileName: name) == format)
    }

    @Test func rendersTheMatchingDocument() {
        let report = GlucoseReport(readings: ReportTrace.inPeriod, end: ReportTrace.end, days: 1, utcOffset: .zero)
        #expect(ReportFormat.svg.render(report) == ReportRenderer.svg(report))
        #expect(ReportFormat.html.render(report) == ReportRenderer.html(report))
        #expect(ReportFormat.allCases.map(\.mediaType) == ["image/svg+xml", "text/html"])
        #expect(ReportFormat.allCases.map(\.fileExtension) == ["svg", "html"])
    }
}
