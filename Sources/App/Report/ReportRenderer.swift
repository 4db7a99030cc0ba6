import Clocks

/// Draws a `GlucoseReport` as one SVG page (and an HTML page around it) a person opens in any
/// browser: the metrics table with consensus targets, a time-in-ranges bar, the AGP chart
/// (5–95 % and 25–75 % bands, median, target range 70–180) and the daily small multiples, with
/// the disclaimer that Vigil is not a medical device. Plain SVG 1.1, no script, no external
/// fonts or files, so it prints and renders the same in rsvg-convert and in browsers.
public enum ReportRenderer {
    public static let disclaimer = "Vigil is not a medical device. This report is for discussion with your care team; do not base treatment decisions on it alone."

    /// Fewer readings than this in a time-of-day bin draw no percentiles there (a gap): five
    /// values cannot say much about a 5th percentile, and two lone readings on different days
    /// must not be drawn as a profile. Fourteen full days give 42 per 15-minute bin.
    public static let minimumReadingsPerBin = 5

    /// The consensus asks for at least 70 % of the expected CGM readings over 14 days before the
    /// metrics are read (Battelino et al. 2019); below it the report says so in red.
    public static let sufficientActiveFraction = 0.7

    static let width = 900.0
    static let agpTop = 420.0, agpHeight = 300.0, chartLeft = 70.0, chartWidth = 780.0
    static let dailyColumns = 7, dailyCellHeight = 84.0, dailyGap = 8.0

    // Range colours (the AGP report's convention: reds for lows, yellow/orange for highs).
    static let rangeColours = ["#a51d2d", "#e01b24", "#2ec27e", "#f6d32d", "#e66100"]

    /// The report as a standalone SVG document.
    public static func svg(_ report: GlucoseReport) -> String {
        let dailyTop = agpTop + agpHeight + 90
        let dailyRows = max(1, (report.daily.count + dailyColumns - 1) / dailyColumns)
        let disclaimerTop = dailyTop + 30 + Double(dailyRows) * (dailyCellHeight + dailyGap) + 10
        let height = disclaimerTop + 60
        var s = SVGBuilder()
        s.raw(##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(f(width))" height="\##(f(height))" viewBox="0 0 \##(f(width)) \##(f(height))" font-family="DejaVu Sans, Verdana, Arial, sans-serif">"##)
        s.raw(##"<rect width="100%" height="100%" fill="#ffffff"/>"##)
        header(report, &s)
        metrics(report.statistics, &s)
        if report.statistics.activeFraction < sufficientActiveFraction {
            s.text("Only \(fixed(report.statistics.activeFraction * 100, 1)) % of the expected sensor readings: the consensus asks for 70 % over 14 days before these figures are relied on.",
                   x: 30, y: 374, size: 12, extra: ##"fill="#a51d2d" font-weight="bold""##)
        }
        timeInRangesBar(report.statistics, &s)
        agp(report, &s)
        daily(report, top: dailyTop, &s)
        s.raw(##"<rect x="30" y="\##(f(disclaimerTop))" width="\##(f(width - 60))" height="36" fill="#fff4e5" stroke="#e66100"/>"##)
        s.text(SVGBuilder.escape(disclaimer), x: 45, y: disclaimerTop + 23, size: 12, extra: ##"fill="#5c2a00""##)
        s.raw("</svg>")
        return s.out
    }

    /// The SVG inside a minimal HTML5 page (UTF-8, titled with the period).
    public static func html(_ report: GlucoseReport) -> String {
        let title = "Vigil glucose report \(ISO8601.date(report.start, utcOffset: report.utcOffset)) to \(ISO8601.date(report.end, utcOffset: report.utcOffset))"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>\(SVGBuilder.escape(title))</title>
            <style>body{margin:0;background:#eee}svg{display:block;margin:0 auto;background:#fff}</style></head>
            <body>
            \(svg(report))</body>
            </html>

            """
    }

    static func header(_ report: GlucoseReport, _ s: inout SVGBuilder) {
        s.text("Vigil glucose report", x: 30, y: 42, size: 24, extra: ##"font-weight="bold""##)
        let from = ISO8601.date(report.start, utcOffset: report.utcOffset)
        let to = ISO8601.date(report.end - .microseconds(1), utcOffset: report.utcOffset)
        let generated = String(ISO8601.string(report.end, utcOffset: report.utcOffset).prefix(16)).replacing("T", with: " ")
        s.text("\(from) to \(to) · \(report.days) days · made \(generated) (UTC\(offsetText(report.utcOffset)))", x: 30, y: 66, size: 13, extra: ##"fill="#444""##)
    }

    static func metrics(_ stats: ReportStatistics, _ s: inout SVGBuilder) {
        let ranges = stats.timeInRanges
        func percent(_ x: Double?) -> String { x.map { fixed($0 * 100, 1) + " %" } ?? "no data" }
        let hasData = stats.readingCount > 0
        let rows: [(String, String, String)] = [
            ("Sensor readings", "\(stats.readingCount)", ""),
            ("Time CGM active", percent(stats.activeFraction), "> 70 %"),
            ("Mean glucose", stats.meanMilligramsPerDeciliter.map { fixed($0, 0) + " mg/dL" } ?? "no data", ""),
            ("GMI", stats.glucoseManagementIndicatorPercent.map { fixed($0, 1) + " %" } ?? "no data", ""),
            ("Coefficient of variation", percent(stats.coefficientOfVariation), "≤ 36 %"),
            ("Standard deviation", stats.standardDeviationMilligramsPerDeciliter.map { fixed($0, 0) + " mg/dL" } ?? "no data", ""),
            ("Very high, > 250 mg/dL", hasData ? percent(ranges.veryHigh) : "no data", "< 5 %"),
            ("High, 181–250 mg/dL", hasData ? percent(ranges.high) : "no data", "< 25 % above 180"),
            ("In range, 70–180 mg/dL", hasData ? percent(ranges.inRange) : "no data", "> 70 %"),
            ("Low, 54–69 mg/dL", hasData ? percent(ranges.low) : "no data", "< 4 % below 70"),
            ("Very low, < 54 mg/dL", hasData ? percent(ranges.veryLow) : "no data", "< 1 %"),
        ]
        let top = 92.0, rowHeight = 23.0
        s.text("Metric", x: 30, y: top, size: 12, extra: ##"font-weight="bold" fill="#444""##)
        s.text("Value", x: 250, y: top, size: 12, extra: ##"font-weight="bold" fill="#444""##)
        s.text("Target", x: 370, y: top, size: 12, extra: ##"font-weight="bold" fill="#444""##)
        for (i, row) in rows.enumerated() {
            let y = top + rowHeight * Double(i + 1)
            if i % 2 == 0 { s.raw(##"<rect x="26" y="\##(f(y - 16))" width="500" height="\##(f(rowHeight))" fill="#f3f4f6"/>"##) }
            if i >= 6 { s.raw(##"<rect x="26" y="\##(f(y - 16))" width="4" height="\##(f(rowHeight))" fill="\##(rangeColours[10 - i])"/>"##) }
            s.text(SVGBuilder.escape(row.0), x: 36, y: y, size: 13)
            s.text(SVGBuilder.escape(row.1), x: 250, y: y, size: 13, extra: ##"font-weight="bold""##)
            s.text(SVGBuilder.escape(row.2), x: 370, y: y, size: 12, extra: ##"fill="#555""##)
        }
    }

    /// The stacked time-in-ranges bar, very high on top as the AGP report draws it.
    static func timeInRangesBar(_ stats: ReportStatistics, _ s: inout SVGBuilder) {
        let x = 600.0, top = 92.0, height = 250.0, barWidth = 56.0
        s.text("Time in ranges", x: x, y: top - 10, size: 13, extra: ##"font-weight="bold""##)
        guard stats.readingCount > 0 else {
            s.raw(##"<rect x="\##(f(x))" y="\##(f(top))" width="\##(f(barWidth))" height="\##(f(height))" fill="#ddd"/>"##)
            s.text("no data", x: x + barWidth + 12, y: top + height / 2, size: 13)
            return
        }
        let r = stats.timeInRanges
        let parts = [(r.veryHigh, 4, "Very high"), (r.high, 3, "High"), (r.inRange, 2, "In range"), (r.low, 1, "Low"), (r.veryLow, 0, "Very low")]
        var y = top
        for (fraction, colour, _) in parts where fraction > 0 {
            s.raw(##"<rect x="\##(f(x))" y="\##(f(y))" width="\##(f(barWidth))" height="\##(f(fraction * height))" fill="\##(rangeColours[colour])"/>"##)
            y += fraction * height
        }
        // Labels at even spacing beside the bar, so thin slices stay legible.
        for (i, part) in parts.enumerated() {
            let ly = top + 20 + Double(i) * (height - 20) / 4
            s.raw(##"<rect x="\##(f(x + barWidth + 12))" y="\##(f(ly - 10))" width="10" height="10" fill="\##(rangeColours[part.1])"/>"##)
            s.text("\(part.2) \(fixed(part.0 * 100, 1)) %", x: x + barWidth + 28, y: ly, size: 13)
        }
    }

    static func agp(_ report: GlucoseReport, _ s: inout SVGBuilder) {
        let top = agpTop, bottom = agpTop + agpHeight
        s.text("Ambulatory glucose profile (\(report.days) days, 15-minute bins, not smoothed)", x: 30, y: top - 24, size: 15, extra: ##"font-weight="bold""##)
        func y(_ mgdL: Double) -> Double { bottom - min(max(mgdL, 0), 400) / 400 * agpHeight }
        func x(_ minute: Double) -> Double { chartLeft + minute / 1440 * chartWidth }
        s.raw(##"<rect x="\##(f(chartLeft))" y="\##(f(top))" width="\##(f(chartWidth))" height="\##(f(agpHeight))" fill="#fafafa" stroke="#999"/>"##)
        s.raw(##"<rect x="\##(f(chartLeft))" y="\##(f(y(180)))" width="\##(f(chartWidth))" height="\##(f(y(70) - y(180)))" fill="#2ec27e" fill-opacity="0.12"/>"##)
        for level in [54.0, 70, 180, 250] {
            let colour = level == 70 || level == 180 ? "#26a269" : "#c0bfbc"
            s.raw(##"<line x1="\##(f(chartLeft))" y1="\##(f(y(level)))" x2="\##(f(chartLeft + chartWidth))" y2="\##(f(y(level)))" stroke="\##(colour)" stroke-dasharray="4 3"/>"##)
        }
        for level in [0.0, 54, 70, 180, 250, 350] {
            s.text(fixed(level, 0), x: chartLeft - 8, y: y(level) + 4, size: 11, extra: ##"text-anchor="end" fill="#444""##)
        }
        s.text("mg/dL", x: chartLeft - 8, y: top - 6, size: 11, extra: ##"text-anchor="end" fill="#444""##)
        for hour in stride(from: 0, through: 24, by: 3) {
            let hx = x(Double(hour * 60))
            s.raw(##"<line x1="\##(f(hx))" y1="\##(f(bottom))" x2="\##(f(hx))" y2="\##(f(bottom + 5))" stroke="#666"/>"##)
            if hour > 0 && hour < 24 {
                s.raw(##"<line x1="\##(f(hx))" y1="\##(f(top))" x2="\##(f(hx))" y2="\##(f(bottom))" stroke="#e5e5e5"/>"##)
            }
            s.text("\(ISO8601.pad(Int64(hour), 2)):00", x: hx, y: bottom + 19, size: 11, extra: ##"text-anchor="middle" fill="#444""##)
        }
        let half = Double(report.profile.binMinutes) / 2
        // Runs of consecutive bins with data: a bin without readings breaks every band and line.
        var runs: [[(Double, AmbulatoryGlucoseProfile.Percentiles)]] = [[]]
        for bin in report.profile.bins {
            if let p = bin.percentiles, bin.count >= minimumReadingsPerBin {
                runs[runs.count - 1].append((Double(bin.startMinute) + half, p))
            } else if !runs[runs.count - 1].isEmpty {
                runs.append([])
            }
        }
        for run in runs where !run.isEmpty {
            func band(_ upper: (AmbulatoryGlucoseProfile.Percentiles) -> Double, _ lower: (AmbulatoryGlucoseProfile.Percentiles) -> Double, _ fill: String, _ opacity: String) {
                let forward = run.map { "\(f(x($0.0))),\(f(y(upper($0.1))))" }
                let back = run.reversed().map { "\(f(x($0.0))),\(f(y(lower($0.1))))" }
                s.raw(##"<polygon points="\##((forward + back).joined(separator: " "))" fill="\##(fill)" fill-opacity="\##(opacity)" stroke="\##(fill)" stroke-opacity="\##(opacity)"/>"##)
            }
            if run.count == 1 {  // a lone bin: a bar for its band, a tick for its median
                let (minute, p) = run[0]
                let left = x(minute - half), binWidth = x(minute + half) - x(minute - half)
                s.raw(##"<rect x="\##(f(left))" y="\##(f(y(p.p95)))" width="\##(f(binWidth))" height="\##(f(y(p.p5) - y(p.p95)))" fill="#1c71d8" fill-opacity="0.18"/>"##)
                s.raw(##"<rect x="\##(f(left))" y="\##(f(y(p.p75)))" width="\##(f(binWidth))" height="\##(f(y(p.p25) - y(p.p75)))" fill="#1c71d8" fill-opacity="0.40"/>"##)
                s.raw(##"<line x1="\##(f(left))" y1="\##(f(y(p.p50)))" x2="\##(f(left + binWidth))" y2="\##(f(y(p.p50)))" stroke="#0b3d91" stroke-width="2.5"/>"##)
                continue
            }
            band({ $0.p95 }, { $0.p5 }, "#1c71d8", "0.18")
            band({ $0.p75 }, { $0.p25 }, "#1c71d8", "0.40")
            let median = run.map { "\(f(x($0.0))),\(f(y($0.1.p50)))" }.joined(separator: " ")
            s.raw(##"<polyline points="\##(median)" fill="none" stroke="#0b3d91" stroke-width="2.5" stroke-linejoin="round"/>"##)
        }
        if report.profile.bins.allSatisfy({ $0.count == 0 }) {
            s.text("no sensor glucose in this period", x: chartLeft + chartWidth / 2, y: top + agpHeight / 2, size: 15, extra: ##"text-anchor="middle" fill="#777""##)
        } else if runs.allSatisfy(\.isEmpty) {
            s.text("too few readings for a profile (at least \(minimumReadingsPerBin) per 15 minutes of the day)",
                   x: chartLeft + chartWidth / 2, y: top + agpHeight / 2, size: 15, extra: ##"text-anchor="middle" fill="#777""##)
        }
        // Legend.
        let ly = bottom + 42
        s.raw(##"<rect x="\##(f(chartLeft))" y="\##(f(ly - 10))" width="22" height="12" fill="#1c71d8" fill-opacity="0.18"/>"##)
        s.text("5–95 %", x: chartLeft + 28, y: ly, size: 12)
        s.raw(##"<rect x="\##(f(chartLeft + 100))" y="\##(f(ly - 10))" width="22" height="12" fill="#1c71d8" fill-opacity="0.40"/>"##)
        s.text("25–75 %", x: chartLeft + 128, y: ly, size: 12)
        s.raw(##"<line x1="\##(f(chartLeft + 205))" y1="\##(f(ly - 4))" x2="\##(f(chartLeft + 227))" y2="\##(f(ly - 4))" stroke="#0b3d91" stroke-width="2.5"/>"##)
        s.text("median", x: chartLeft + 233, y: ly, size: 12)
        s.raw(##"<rect x="\##(f(chartLeft + 300))" y="\##(f(ly - 10))" width="22" height="12" fill="#2ec27e" fill-opacity="0.25"/>"##)
        s.text("target range 70–180 mg/dL", x: chartLeft + 328, y: ly, size: 12)
    }

    static func daily(_ report: GlucoseReport, top: Double, _ s: inout SVGBuilder) {
        s.text("Daily glucose (40–400 mg/dL, midnight to midnight)", x: 30, y: top, size: 15, extra: ##"font-weight="bold""##)
        let cellWidth = (width - 60 - Double(dailyColumns - 1) * dailyGap) / Double(dailyColumns)
        let plotTop = 16.0
        let plotHeight = dailyCellHeight - plotTop
        if report.daily.isEmpty {
            s.text("no sensor glucose in this period", x: 30, y: top + 30, size: 13, extra: ##"fill="#777""##)
        }
        for (i, day) in report.daily.enumerated() {
            let cx = 30 + Double(i % dailyColumns) * (cellWidth + dailyGap)
            let cy = top + 18 + Double(i / dailyColumns) * (dailyCellHeight + dailyGap)
            func y(_ mgdL: Double) -> Double { cy + plotTop + plotHeight - (min(max(mgdL, 40), 400) - 40) / 360 * plotHeight }
            func x(_ minute: Double) -> Double { cx + minute / 1440 * cellWidth }
            s.text(day.date, x: cx + 2, y: cy + 11, size: 10, extra: ##"fill="#333""##)
            s.raw(##"<rect x="\##(f(cx))" y="\##(f(cy + plotTop))" width="\##(f(cellWidth))" height="\##(f(plotHeight))" fill="#fafafa" stroke="#bbb"/>"##)
            s.raw(##"<rect x="\##(f(cx))" y="\##(f(y(180)))" width="\##(f(cellWidth))" height="\##(f(y(70) - y(180)))" fill="#2ec27e" fill-opacity="0.15"/>"##)
            for hour in [6.0, 12, 18] {  // faint quarter-day marks, so a dip can be placed in the day
                s.raw(##"<line x1="\##(f(x(hour * 60)))" y1="\##(f(cy + plotTop))" x2="\##(f(x(hour * 60)))" y2="\##(f(cy + dailyCellHeight))" stroke="#ddd"/>"##)
            }
            for segment in day.segments {
                let points = segment.map { "\(f(x($0.minuteOfDay))),\(f(y($0.milligramsPerDeciliter)))" }
                if points.count == 1 {
                    s.raw(##"<circle cx="\##(f(x(segment[0].minuteOfDay)))" cy="\##(f(y(segment[0].milligramsPerDeciliter)))" r="1.5" fill="#0b3d91"/>"##)
                } else {
                    s.raw(##"<polyline points="\##(points.joined(separator: " "))" fill="none" stroke="#0b3d91" stroke-width="1.2"/>"##)
                }
            }
        }
    }

    static func offsetText(_ offset: Duration) -> String {
        let minutes = offset.nanosecondsClamped / 60_000_000_000
        return (minutes < 0 ? "-" : "+") + ISO8601.pad(abs(minutes) / 60, 2) + ":" + ISO8601.pad(abs(minutes) % 60, 2)
    }

    /// Coordinates with two decimals at most: short files, and no binary-fraction noise.
    /// Worked out on the whole number of hundredths, not by trimming zeros off a string: a
    /// report has thousands of coordinates, and `String.removeLast` was a fifth of its time.
    static func f(_ x: Double) -> String {
        guard let hundredths = roundedMagnitude(x, scale: 100) else { return unscaled(x) }
        let whole = (x < 0 && hundredths != 0 ? "-" : "") + String(hundredths / 100)
        let cents = hundredths % 100
        if cents == 0 { return whole }
        return whole + "." + (cents % 10 == 0 ? String(cents / 10) : ISO8601.pad(cents, 2))
    }

    /// `x` with exactly `digits` decimals (0...6), rounded half away from zero.
    static func fixed(_ x: Double, _ digits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        guard let scaled = roundedMagnitude(x, scale: scale) else { return unscaled(x) }
        let sign = x < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(scaled) }
        return sign + String(scaled / scale) + "." + ISO8601.pad(scaled % scale, digits)
    }

    /// |x| × scale rounded half away from zero, or nil when that is not a finite number an
    /// Int64 holds exactly (converting it would trap).
    private static func roundedMagnitude(_ x: Double, scale: Int64) -> Int64? {
        let scaled = (abs(x) * Double(scale)).rounded(.toNearestOrAwayFromZero)
        guard scaled.isFinite, scaled < 0x1p53 else { return nil }
        return Int64(scaled)
    }

    /// A value too large for fixed decimals (no real report has one) still prints, in Swift's
    /// shortest form, which SVG reads as a number; not-a-number prints as a dash.
    private static func unscaled(_ x: Double) -> String { x.isFinite ? "\(x)" : "–" }
}
