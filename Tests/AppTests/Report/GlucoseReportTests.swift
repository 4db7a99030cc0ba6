import Clocks
import Readings
import Testing
@testable import App

@Suite struct GlucoseReportTests {
    @Test func thePeriodIsTheDaysEndingAtEnd() {
        let end = ReportTrace.end
        let report = GlucoseReport(readings: ReportTrace.inPeriod + ReportTrace.ignored, end: end, days: 1, utcOffset: .zero)
        #expect(report.start == end - .seconds(86_400))
        // The reading at `end` is outside ([start, end)); the one 5 minutes before the trace is inside.
        #expect(report.statistics.readingCount == 12)
        #expect(report.profile.bins.reduce(0) { $0 + $1.count } == 12)
        #expect(report.daily.map(\.date) == ["2026-11-21", "2026-11-22"])
        #expect(report.daily.map(\.points.count) == [1, 11])
    }

    @Test func readFromAPagedSourceItAsksOnlyForThePeriodsGlucose() throws {
        var source = ArraySource(readings: ReportTrace.ignored + ReportTrace.inPeriod)
        let paged = try GlucoseReport(from: &source, end: ReportTrace.end, days: 1, utcOffset: .zero, pageSize: 5)
        #expect(paged == GlucoseReport(readings: ReportTrace.inPeriod + ReportTrace.ignored, end: ReportTrace.end, days: 1, utcOffset: .zero))
        #expect(source.pagesServed == 3)  // 12 glucose readings in the day, pages of 5
        #expect(GlucoseReport.filter(end: ReportTrace.end, days: 1) == ExportFilter(since: ReportTrace.end - .seconds(86_400), until: ReportTrace.end, kind: .glucose))
    }
}
