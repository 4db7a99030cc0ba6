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
}
