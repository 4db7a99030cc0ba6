import Clocks

/// What a USB-stick export writes (the button's double press or `vigil export --usb`),
/// sans-IO: the folder and file names and what goes in each file. The shell does the I/O and
/// the atomicity: it writes every file into `temporaryFolder`, syncs, then renames it to
/// `folder` (a rename on one file system is atomic, so a stick pulled mid-write holds either
/// no bundle or a complete one, plus at worst a stale `.partial` folder the next export
/// replaces).
///
/// Names avoid characters FAT/exFAT forbid (`:` above all), since sticks are FAT-formatted.
public struct USBBundle: Equatable, Sendable {
    /// What one file holds.
    public enum Content: Equatable, Sendable {
        /// Readings through the format's exporter.
        case export(ExportFormat, ExportFilter)
        /// The clinician's report over the `days` ending at the bundle's time.
        case report(ReportFormat, days: Int)
        /// Fixed text (the README).
        case text(String)
    }

    public struct File: Equatable, Sendable {
        /// Name inside the bundle folder.
        public var name: String
        public var content: Content
    }

    /// `vigil-2026-11-22-0705`: local date and time, so several bundles a day sort and never clash.
    public var folder: String
    /// Where the files are written before the rename: `.vigil-2026-11-22-0705.partial`.
    public var temporaryFolder: String { "." + folder + ".partial" }
    public var files: [File]
    /// When the bundle was made: the end of the report's period.
    public var made: WallClockTime
    public var utcOffset: Duration

    /// The standard bundle made at `now`: every reading as CSV, glucose as Nightscout entries,
    /// the report as SVG and HTML, and a README saying what each is.
    public init(now: WallClockTime, utcOffset: Duration, reportDays: Int = 14) {
        made = now
        self.utcOffset = utcOffset
        let stamp = ISO8601.string(now, utcOffset: utcOffset)  // 2026-11-22T07:05:00+01:00
        let date = String(stamp.prefix(10))
        let hourMinute = String(stamp.dropFirst(11).prefix(5)).replacing(":", with: "")
        folder = "vigil-\(date)-\(hourMinute)"
        files = [
            File(name: "readings.csv", content: .export(.csv, .all)),
            File(name: "nightscout-entries.json", content: .export(.nightscout, .all)),
            File(name: "report.svg", content: .report(.svg, days: reportDays)),
            File(name: "report.html", content: .report(.html, days: reportDays)),
            File(name: "README.txt", content: .text(Self.readme(made: stamp, reportDays: reportDays))),
        ]
    }

    /// The folder name for a second bundle in the same minute: `vigil-2026-11-22-0705-2`.
    public func folder(attempt: Int) -> String { attempt <= 1 ? folder : "\(folder)-\(attempt)" }

    /// Produces one file's bytes, handing them to `sink` a piece at a time (a page of readings
    /// per piece for exports; the whole document for the report and the README). The shell's
    /// `sink` writes to the temporary folder; an error from it or from the source stops here.
    public func write<Source: ReadingPageSource>(_ file: File, from source: inout Source, pageSize: Int = 1000,
                                                 to sink: ([UInt8]) throws -> Void) throws {
        switch file.content {
        case let .export(format, filter):
            var stream = ExportStream(format: format, filter: filter, utcOffset: utcOffset, pageSize: pageSize)
            while let piece = try stream.next(from: &source) { try sink(piece) }
        case let .report(format, days):
            let report = try GlucoseReport(from: &source, end: made, days: days, utcOffset: utcOffset, pageSize: pageSize)
            try sink(Array(format.render(report).utf8))
        case let .text(text):
            try sink(Array(text.utf8))
        }
    }

    static func readme(made stamp: String, reportDays: Int) -> String {
        """
        Vigil export, made \(stamp)\r
        \r
        readings.csv             every reading: device, kind, value, unit, trend, time (local, with UTC offset), sensor_time, sensor_run, origin, context (a meter's meal and tester)\r
        nightscout-entries.json  glucose as Nightscout API v1 entries (sgv in mg/dL, date in epoch ms), for upload to Nightscout\r
        report.svg, report.html  the last \(reportDays) days: time in ranges, GMI, CV, ambulatory glucose profile, daily charts\r
        \r
        \(ReportRenderer.disclaimer)\r

        """
    }
}
