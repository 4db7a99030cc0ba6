#if canImport(Glibc)
import Glibc
#endif
import Clocks
import Readings
import Testing
@testable import App

/// A deterministic 14-day trace with a daily rhythm (dawn rise, meal peaks, a night low on some
/// days) and a few hours of lost signal, for looking at the rendered report.
enum TwoWeeks {
    static let end = WallClockTime(secondsSinceEpoch: 1_795_305_600 + 6 * 3600)  // 2026-11-22T06:00Z

    static let readings: [RecordedReading] = {
        var out: [RecordedReading] = []
        var seed: UInt64 = 0x5EED
        let start = end - .seconds(14 * 86_400)
        for i in 0..<(14 * 288) {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(seed >> 40) / Double(1 << 24) * 30 - 15
            let minute = Double((i * 5 + 60) % 1440)  // local time at UTC+01:00
            let day = i / 288
            if day == 4 && (600..<840).contains(minute) { continue }  // four hours without signal
            var mgdL = 120 + noise
            mgdL += 60 * bump(minute, at: 480, width: 60) + 90 * bump(minute, at: 790, width: 70) + 110 * bump(minute, at: 1190, width: 80)
            if day % 3 == 0 { mgdL -= 75 * bump(minute, at: 200, width: 50) }
            out.append(RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL.rounded()), trend: .flat),
                                       wallTime: start + .seconds(Int64(i) * 300)))
        }
        return out
    }()

    static func bump(_ x: Double, at centre: Double, width: Double) -> Double {
        let d = (x - centre) / width
        return 1 / (1 + d * d)
    }
}

@Suite struct ReportRendererTests {
    let report = GlucoseReport(readings: TwoWeeks.readings, end: TwoWeeks.end, days: 14, utcOffset: .seconds(3600))

    @Test func svgIsOneDocumentWithTheDisclaimer() {
        let svg = ReportRenderer.svg(report)
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.ranges(of: "<svg").count == 1)
        #expect(svg.contains(ReportRenderer.disclaimer))
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }

    @Test func svgShowsTheMetricsAsComputed() throws {
        let svg = ReportRenderer.svg(report)
        let s = report.statistics
        #expect(svg.contains(">\(ReportRenderer.fixed(s.timeInRanges.inRange * 100, 1)) %</text>"))
        #expect(svg.contains(">\(ReportRenderer.fixed(try #require(s.meanMilligramsPerDeciliter), 0)) mg/dL</text>"))
        #expect(svg.contains(">\(ReportRenderer.fixed(try #require(s.glucoseManagementIndicatorPercent), 1)) %</text>"))
        #expect(svg.contains(">\(s.readingCount)</text>"))
        #expect(svg.contains("2026-11-08 to 2026-11-22 · 14 days"))
    }

    @Test func svgDrawsTheBandsAndOneCellPerDay() {
        let svg = ReportRenderer.svg(report)
        // Every bin has data here: one run, so two band polygons and one median line.
        #expect(svg.ranges(of: "<polygon").count == 2)
        #expect(svg.contains(##"stroke="#0b3d91" stroke-width="2.5" stroke-linejoin="round""##))
        // 15 local days (the period starts and ends at 07:00 local); one date label per day.
        #expect(report.daily.count == 15)
        #expect(report.daily.allSatisfy { svg.contains(">\($0.date)</text>") })
    }

    @Test func aTimeOfDayWithoutReadingsBreaksTheBands() {
        // Readings only 00:00–02:00 and 12:00–14:00 local: two runs, each with two bands and a median.
        let kept = TwoWeeks.readings.filter {
            let minute = LocalDay.minuteOfDay($0.wallTime, utcOffset: .seconds(3600))
            return minute < 120 || (720..<840).contains(minute)
        }
        let svg = ReportRenderer.svg(GlucoseReport(readings: kept, end: TwoWeeks.end, days: 14, utcOffset: .seconds(3600)))
        #expect(svg.ranges(of: "<polygon").count == 4)
        #expect(svg.ranges(of: ##"stroke-width="2.5" stroke-linejoin="round""##).count == 2)
    }

    @Test func sparseDataDrawsNoProfileAndSaysWhy() {
        // One hour of readings in a 14-day report: at most 3 per bin, and 11 of 4032 slots filled.
        let report = GlucoseReport(readings: ReportTrace.inPeriod, end: ReportTrace.end, days: 14, utcOffset: .zero)
        let svg = ReportRenderer.svg(report)
        #expect(!svg.contains("<polygon") && !svg.contains("stroke-linejoin"))
        #expect(svg.contains("too few readings for a profile (at least 5 per 15 minutes of the day)"))
        #expect(svg.contains(">Only 0.2 % of the expected sensor readings: the consensus asks for 70 % over 14 days before these figures are relied on.</text>"))
        #expect(!ReportRenderer.svg(self.report).contains("Only "))  // 98.8 % active: no warning
    }

    @Test func aLoneBinIsDrawnAsBarsNotAnInvisibleLine() {
        // Five days with one reading each at 08:05 local: bin 32 (08:00–08:15) alone has enough.
        let readings = (1...5).map { day in
            RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: Double(100 + 10 * day)), trend: nil),
                            wallTime: TwoWeeks.end - .seconds(Int64(day) * 86_400) + .seconds(2 * 3600 + 5 * 60))
        }
        let report = GlucoseReport(readings: readings, end: TwoWeeks.end, days: 14, utcOffset: .zero)
        #expect(report.profile.bins[32].count == 5)
        let svg = ReportRenderer.svg(report)
        #expect(!svg.contains("<polygon"))
        // x = 70 + 480 / 1440 × 780 = 330, width 15 / 1440 × 780 = 8.125 → "8.13"; p50 = 130 → y = 720 − 130 × 0.75.
        #expect(svg.contains(##"<line x1="330" y1="622.5" x2="338.13" y2="622.5" stroke="#0b3d91" stroke-width="2.5"/>"##))
    }

    @Test func anEmptyReportSaysNoData() {
        let empty = GlucoseReport(readings: [], end: TwoWeeks.end, utcOffset: .zero)
        let svg = ReportRenderer.svg(empty)
        #expect(svg.contains("no sensor glucose in this period"))
        #expect(svg.contains(">no data</text>"))
        #expect(!svg.contains("<polygon"))
    }

    @Test func htmlWrapsTheSVG() {
        let html = ReportRenderer.html(report)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.contains("<title>Vigil glucose report 2026-11-08 to 2026-11-22</title>"))
        #expect(html.contains(ReportRenderer.svg(report)))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test(arguments: [(0.0, 0, "0"), (1.25, 1, "1.3"), (-1.25, 1, "-1.3"), (6.354, 2, "6.35"), (-0.04, 1, "0.0"), (127.5, 0, "128"), (0.05, 3, "0.050"),
                       (1e300, 1, "1e+300"), (.infinity, 0, "–"), (.nan, 2, "–")])
    func fixedDecimals(_ x: Double, _ digits: Int, _ text: String) {
        #expect(ReportRenderer.fixed(x, digits) == text)
    }

    @Test(arguments: [(0.0, "0"), (622.5, "622.5"), (8.125, "8.13"), (300, "300"), (-0.001, "0"), (-2.5, "-2.5"), (1.999, "2"),
                       (0.1, "0.1"), (-0.07, "-0.07"), (12.3456, "12.35"), (-1e300, "-1e+300"), (.nan, "–")])
    func coordinatesDropTrailingZeros(_ x: Double, _ text: String) {
        #expect(ReportRenderer.f(x) == text)
    }

    @Test func escapesMarkup() {
        #expect(SVGBuilder.escape(#"a<b & "c">"#) == "a&lt;b &amp; &quot;c&quot;&gt;")
    }

    /// Writes the report to $VIGIL_REPORT_OUT.svg/.html for a look (`rsvg-convert` to PNG);
    /// does nothing when the variable is unset.
    @Test func writesTheReportWhenAsked() {
        #if canImport(Glibc)
        guard let base = getenv("VIGIL_REPORT_OUT").map({ String(cString: $0) }) else { return }
        for (suffix, text) in [(".svg", ReportRenderer.svg(report)), (".html", ReportRenderer.html(report))] {
            let file = fopen(base + suffix, "w")
            #expect(file != nil)
            fputs(text, file)
            fclose(file)
        }
        #endif
    }
}
