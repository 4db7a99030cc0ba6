import Clocks
import Testing
@testable import App

@Suite struct USBBundleTests {
    @Test func namesTheFolderByLocalDateAndTimeWithoutColons() {
        let bundle = USBBundle(now: ExportFixtures.t0, utcOffset: .seconds(3600))  // 07:05 local
        #expect(bundle.folder == "vigil-2026-11-22-0705")
        #expect(bundle.temporaryFolder == ".vigil-2026-11-22-0705.partial")
        #expect(bundle.folder(attempt: 1) == "vigil-2026-11-22-0705")
        #expect(bundle.folder(attempt: 2) == "vigil-2026-11-22-0705-2")
        #expect(!bundle.folder.contains(":") && bundle.files.allSatisfy { !$0.name.contains(":") && !$0.name.contains("/") })
    }

    @Test func holdsCSVNightscoutTheReportAndAReadme() throws {
        let bundle = USBBundle(now: ExportFixtures.t0, utcOffset: .zero, reportDays: 28)
        #expect(bundle.files.map(\.name) == ["readings.csv", "nightscout-entries.json", "report.svg", "report.html", "README.txt"])
        #expect(bundle.files[0].content == .export(.csv, .all))
        #expect(bundle.files[1].content == .export(.nightscout, .all))
        #expect(bundle.files[2].content == .report(.svg, days: 28))
        #expect(bundle.files[3].content == .report(.html, days: 28))
        guard case let .text(readme) = bundle.files[4].content else { Issue.record("README is not text"); return }
        #expect(readme.hasPrefix("Vigil export, made 2026-11-22T06:05:00+00:00\r\n"))
        #expect(readme.contains("the last 28 days"))
        #expect(readme.contains(ReportRenderer.disclaimer))
    }

    @Test func writesEachFileThroughTheSink() throws {
        let bundle = USBBundle(now: TwoWeeks.end, utcOffset: .seconds(3600))
        var source = ArraySource(readings: TwoWeeks.readings + [ExportFixtures.heart])
        var written: [String: [UInt8]] = [:]
        for file in bundle.files {
            try bundle.write(file, from: &source, pageSize: 700) { written[file.name, default: []] += $0 }
        }
        var csv = CSVExporter(utcOffset: .seconds(3600)), nightscout = NightscoutExporter(utcOffset: .seconds(3600))
        #expect(written["readings.csv"] == csv.export(TwoWeeks.readings + [ExportFixtures.heart]))
        #expect(written["nightscout-entries.json"] == nightscout.export(TwoWeeks.readings))
        let report = GlucoseReport(readings: TwoWeeks.readings, end: TwoWeeks.end, days: 14, utcOffset: .seconds(3600))
        #expect(written["report.svg"] == Array(ReportRenderer.svg(report).utf8))
        #expect(written["report.html"] == Array(ReportRenderer.html(report).utf8))
        #expect(written["README.txt"].map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("Vigil export, made 2026-11-22T07:00:00+01:00") == true)
    }

    @Test func aSinkErrorStopsTheFile() {
        struct Full: Error {}
        let bundle = USBBundle(now: TwoWeeks.end, utcOffset: .zero)
        var source = ArraySource(readings: TwoWeeks.readings)
        var pieces = 0
        #expect(throws: Full.self) {
            try bundle.write(bundle.files[0], from: &source, pageSize: 100) { _ in
                pieces += 1
                if pieces == 3 { throw Full() }
            }
        }
        #expect(source.pagesServed == 3)  // nothing read after the stick filled up
    }
}
