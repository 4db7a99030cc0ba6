import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

extension Interop {
    /// `vigil report` through the binary over a filled history: the SVG is well-formed XML whose
    /// text carries the period's figures; the HTML wraps the same SVG; bad arguments are 64.
    @Suite struct ReportCommandInteropTests {
        final class TextCollector: NSObject, XMLParserDelegate {
            var root: String?
            var text = ""
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                if root == nil { root = name }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string + " " }
        }

        @Test func svgReportIsWellFormedAndCoversThePeriod() throws {
            let fixture = try HistoryFixture()
            let output = fixture.path("report.svg")
            // The fixture's 2,500 glucose readings span 2026-11-01T00:00Z to 11-09T16:15Z: a
            // 14-day report ending 11-10 covers them all.
            let result = try VigilProcess().run(["report", "--database", fixture.database, "-o", output,
                                                 "--days", "14", "--end", "2026-11-10T00:00:00Z", "--utc-offset", "+01:00"])
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(result.stdoutText.contains("wrote \(output): 14 days to 2026-11-10T01:00:00+01:00"), "\(result.stdoutText)")
            let parser = try #require(XMLParser(contentsOf: URL(fileURLWithPath: output)))
            let collector = TextCollector()
            parser.delegate = collector
            // On Linux parse() may return true for a truncated document; parserError tells.
            #expect(parser.parse() && parser.parserError == nil, "\(parser.parserError.map { "\($0)" } ?? "")")
            #expect(collector.root == "svg")
            #expect(collector.text.contains("not a medical device"))
            #expect(collector.text.contains("2500"), "the sensor reading count")
            // Mean of 80...179 repeated (25 whole cycles): 129.5 mg/dL, shown rounded.
            #expect(collector.text.contains("130") || collector.text.contains("129"), "\(collector.text.prefix(2_000))")
        }

        @Test func htmlReportEmbedsTheSVG() throws {
            let fixture = try HistoryFixture(glucose: 600, heartRate: 0)
            let output = fixture.path("report.html")
            let result = try VigilProcess().run(["report", "--database", fixture.database, "-o", output, "--days", "7",
                                                 "--end", "2026-11-03T00:00:00Z"])
            #expect(result.exitCode == 0, "\(result.summary)")
            let html = try String(contentsOfFile: output, encoding: .utf8)
            #expect(html.lowercased().hasPrefix("<!doctype html"))
            #expect(html.contains("<svg"))
            #expect(html.contains("</html>"))
        }

        /// Renders the SVG to PNG as a browser would, so a malformed drawing fails here too.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/rsvg-convert"), "rsvg-convert is not installed"))
        func svgRendersToPNG() throws {
            let fixture = try HistoryFixture()
            let output = fixture.path("report.svg")
            let png = fixture.path("report.png")
            let result = try VigilProcess().run(["report", "--database", fixture.database, "-o", output, "--end", "2026-11-10T00:00:00Z"])
            #expect(result.exitCode == 0, "\(result.summary)")
            let render = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/rsvg-convert"),
                                              arguments: ["-o", png, output], timeout: .seconds(30))
            #expect(render.exitCode == 0, "\(render.summary)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(bytes.count > 10_000)
        }

        @Test(arguments: [
            (["-o", "report.pdf"], "-o must name a .svg or .html file"),
            (["-o", "r.svg", "--days", "0"], "--days must be from 1 to 366"),
            (["-o", "r.svg", "--end", "soon"], "--end"),
        ])
        func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
            let result = try VigilProcess().run(["report", "--database", "/nonexistent/history.sqlite"] + arguments)
            #expect(result.exitCode == 64, "\(result.summary)")
            #expect(result.stderrText.contains(message), "\(result.stderrText)")
        }
    }
}
