import Clocks

/// What a USB-stick export writes (issue 5: the button's double press or `vigil export --usb`),
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
        case report(SerialCommand.ReportFormat, days: Int)
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

    /// The standard bundle made at `now`: every reading as CSV, glucose as Nightscout entries,
    /// the report as SVG and HTML, and a README saying what each is.
    public init(now: WallClockTime, utcOffset: Duration, reportDays: Int = 14) {
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

    static func readme(made stamp: String, reportDays: Int) -> String {
        """
        Vigil export, made \(stamp)\r
        \r
        readings.csv             every reading: device, kind, value, unit, trend, time (local, with UTC offset), sensor_time, origin\r
        nightscout-entries.json  glucose as Nightscout API v1 entries (sgv in mg/dL, date in epoch ms), for upload to Nightscout\r
        report.svg, report.html  the last \(reportDays) days: time in ranges, GMI, CV, ambulatory glucose profile, daily charts\r
        \r
        \(ReportRenderer.disclaimer)\r

        """
    }
}
