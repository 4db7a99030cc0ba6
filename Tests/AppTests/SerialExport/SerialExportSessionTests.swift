import Clocks
import Readings
import Testing
@testable import App

extension SerialExportSession {
    /// Everything the session says until it has nothing left (a test drain; the shell calls
    /// `nextOutput` once per writable tty instead).
    mutating func drain(_ source: inout ArraySource) -> String {
        var out: [UInt8] = []
        var calls = 0
        while hasOutput && calls < 10_000 {
            out += nextOutput(from: &source)
            calls += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

@Suite struct SerialExportSessionTests {
    let now = WallClockTime(secondsSinceEpoch: 1_795_327_500 + 3600)
    var source = ArraySource(readings: ExportFixtures.everyKind)

    func session(pageSize: Int = 1000) -> SerialExportSession {
        SerialExportSession(configuration: .init(utcOffset: .zero, pageSize: pageSize, echo: false))
    }

    @Test mutating func helpListsTheCommandsAndEndsWithADot() {
        var s = session()
        s.receive(Array("help\r\n".utf8), wallNow: now)
        let out = s.drain(&source)
        #expect(out == "OK help\r\n" + SerialCommand.helpLines.map { $0 + "\r\n" }.joined() + ".\r\n")
        #expect(!s.hasOutput)
    }

    @Test mutating func statusComesFromTheSource() {
        var s = session()
        s.receive(Array("STATUS\n".utf8), wallNow: now)
        #expect(s.drain(&source) == "OK status\r\nreadings 9\r\noldest 2026-11-22T06:05:00+00:00\r\n.\r\n")
    }

    @Test mutating func exportStreamsOnePagePerCallAndEndsWithADot() {
        var s = session(pageSize: 4)
        s.receive(Array("EXPORT csv\r".utf8), wallNow: now)
        #expect(String(decoding: s.nextOutput(from: &source), as: UTF8.self) == "OK export csv\r\n")
        #expect(source.pagesServed == 0)  // nothing read before the client can take it
        var body = ""
        while s.hasOutput { body += String(decoding: s.nextOutput(from: &source), as: UTF8.self) }
        #expect(source.pagesServed == 3)  // 4 + 4 + 1 readings
        var exporter = CSVExporter(utcOffset: .zero)
        #expect(body == String(decoding: exporter.export(ExportFixtures.everyKind), as: UTF8.self) + ".\r\n")
    }

    @Test mutating func exportTakesTheWindowInLocalTime() {
        var s = SerialExportSession(configuration: .init(utcOffset: .seconds(3600), echo: false))
        // 07:06 to 07:08 local (+01:00) = 06:06Z (inclusive) to 06:08Z (exclusive): two readings.
        s.receive(Array("EXPORT ndjson 2026-11-22T07:06 2026-11-22T07:08\n".utf8), wallNow: now)
        let out = s.drain(&source)
        // (Swift reads "\r\n" as one Character, so the lines are compared as one string.)
        #expect(out == "OK export ndjson\r\n"
            + #"{"device":"libre","kind":"glucose","value":97.6,"unit":"mg/dL","time":"2026-11-22T07:06:00+01:00","date":1795327560000,"origin":"backfill"}"# + "\n"
            + #"{"device":"meter","kind":"meter-glucose","value":104.4,"unit":"mg/dL","context":"meal=preprandial;tester=self","#
            + #""time":"2026-11-22T07:07:00+01:00","date":1795327620000,"sensor_time":12,"sensor_run":"2026-11-22T07:07:00","origin":"live"}"# + "\n"
            + ".\r\n")
    }

    @Test func aLongExportComesInPieceSizedByThePageNotByTheExport() {
        // 20,000 readings, pages of 100: no single write holds more than a page's rows.
        let many = (0..<20_000).map { i in
            RecordedReading(device: "hr1", value: .heartRate(BeatsPerMinute(UInt16(60 + i % 50)), contact: .detected),
                            wallTime: ExportFixtures.t0 + .seconds(Int64(i)))
        }
        var big = ArraySource(readings: many)
        var s = SerialExportSession(configuration: .init(pageSize: 100, echo: false))
        s.receive(Array("EXPORT csv\n".utf8), wallNow: now)
        var largest = 0, total = 0, writes = 0
        while s.hasOutput {
            let chunk = s.nextOutput(from: &big)
            largest = max(largest, chunk.count)
            total += chunk.count
            writes += 1
        }
        #expect(big.pagesServed == 200)
        #expect(writes == 202)  // the OK line, one write per page (the first with the header), the "."
        #expect(largest <= 100 * 60)  // a heart-rate row is about 55 bytes
        #expect(total > 20_000 * 50)
    }

    @Test mutating func aFailingReadAbortsTheBodyVisibly() {
        source.failOnPage = 2
        var s = session(pageSize: 4)
        s.receive(Array("EXPORT json\n".utf8), wallNow: now)
        let out = s.drain(&source)
        #expect(out.hasPrefix("OK export json\r\n[\n{"))
        // The JSON line in flight is closed with CRLF before the abort line, so the client sees it.
        #expect(out.hasSuffix("}\r\n.ERR history read failed: disk I/O error\r\n"))
        #expect(!s.hasOutput)
    }

    @Test mutating func errorsAreOneLineAndTheSessionCarriesOn() {
        var s = session()
        s.receive(Array("FROB\r\nEXPORT xml\r\nEXPORT\r\nREPORT 0\r\nEXPORT csv 2026-11-22 2026-11-21\r\nEXPORT csv yesterday\r\nHELP me\r\n\r\n\n".utf8), wallNow: now)
        let out = s.drain(&source)
        #expect(out == """
            ERR unknown command 'FROB' (try HELP)\r
            ERR unknown export format 'xml' (expected csv, json, ndjson, nightscout)\r
            ERR EXPORT needs a format: csv, json, ndjson or nightscout\r
            ERR '0' is not a number of days from 1 to 366\r
            ERR since must be before until\r
            ERR 'yesterday' is not an ISO 8601 date or date-time (e.g. 2026-11-22 or 2026-11-22T07:05:00+01:00)\r
            ERR too many arguments for HELP (try HELP)\r

            """)
    }

    @Test mutating func aLongLineIsAnsweredOnceAndDiscardedToItsEnd() {
        var s = SerialExportSession(configuration: .init(maximumLineLength: 16, echo: false))
        s.receive(Array(String(repeating: "X", count: 40).utf8), wallNow: now)
        s.receive(Array((String(repeating: "Y", count: 40) + "\nSTATUS\n").utf8), wallNow: now)
        #expect(s.drain(&source) == "ERR line too long (at most 16 bytes)\r\nOK status\r\nreadings 9\r\noldest 2026-11-22T06:05:00+00:00\r\n.\r\n")
    }

    @Test mutating func commandsDuringAnExportWaitTheirTurnAndTheQueueIsBounded() {
        var s = SerialExportSession(configuration: .init(pageSize: 2, maximumQueuedCommands: 2, echo: false))
        s.receive(Array("EXPORT nightscout\n".utf8), wallNow: now)
        _ = s.nextOutput(from: &source)
        s.receive(Array("HELP\nSTATUS\nSTATUS\nSTATUS\n".utf8), wallNow: now)
        let out = s.drain(&source)
        let afterExport = out.split(separator: "]\n.\r\n", maxSplits: 1)
        #expect(afterExport.count == 2)
        // HELP and one STATUS were queued (two slots); the rest got one "busy" answer.
        #expect(afterExport[1].hasPrefix("OK help\r\n"))
        #expect(afterExport[1].hasSuffix(".\r\nOK status\r\nreadings 9\r\noldest 2026-11-22T06:05:00+00:00\r\n.\r\nERR busy: too many commands waiting, later ones dropped\r\n"))
    }

    @Test mutating func reportGathersGlucoseAndSendsTheSVG() {
        var s = SerialExportSession(configuration: .init(utcOffset: .seconds(3600), pageSize: 500))
        var twoWeeks = ArraySource(readings: TwoWeeks.readings)
        s.receive(Array("REPORT\n".utf8), wallNow: TwoWeeks.end)
        var parser = SerialResponseParser()
        var body: [UInt8] = []
        var events: [SerialResponseParser.Event] = []
        while s.hasOutput {
            for event in parser.receive(s.nextOutput(from: &twoWeeks)) {
                if case let .body(bytes) = event { body += bytes } else { events.append(event) }
            }
        }
        #expect(events == [.started("report svg 14 days"), .finished])
        let expected = ReportRenderer.svg(GlucoseReport(readings: TwoWeeks.readings, end: TwoWeeks.end, days: 14, utcOffset: .seconds(3600)))
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(twoWeeks.pagesServed == 8)  // 4032 readings less 48 lost = 3984, pages of 500: the 8th is short and last
    }

    @Test mutating func aDroppedSessionLeavesNothingBehind() {
        // A disconnect mid-export is the shell dropping the session: the source simply stops
        // being asked, and a new session starts clean.
        var s = session(pageSize: 2)
        s.receive(Array("EXPORT csv\n".utf8), wallNow: now)
        _ = s.nextOutput(from: &source)
        _ = s.nextOutput(from: &source)
        #expect(s.hasOutput && source.pagesServed == 1)
        s = session(pageSize: 2)
        #expect(!s.hasOutput && s.nextOutput(from: &source).isEmpty)
        #expect(source.pagesServed == 1)
    }

    @Test mutating func echoesTypingWhileIdleButNeverIntoABody() {
        var s = SerialExportSession(configuration: .init(pageSize: 4))  // echo is on by default
        s.receive(Array("HEPL".utf8) + [0x7F, 0x7F, 0x01] + Array("LP\r".utf8), wallNow: now)
        s.receive(Array("\n".utf8), wallNow: now)  // the LF of the CRLF: no second line end
        // The control byte 0x01 is not echoed, but it is in the line, which is then not HELP.
        #expect(s.drain(&source) == "HEPL\u{8} \u{8}\u{8} \u{8}LP\r\nERR unknown command 'HE\u{1}LP' (try HELP)\r\n")
        s.receive(Array("EXPORT csv\n".utf8), wallNow: now)
        #expect(String(decoding: s.nextOutput(from: &source), as: UTF8.self) == "EXPORT csv\r\n")
        #expect(String(decoding: s.nextOutput(from: &source), as: UTF8.self) == "OK export csv\r\n")
        s.receive(Array("STATUS\n".utf8), wallNow: now)  // typed mid-export: queued, not echoed
        var rest = ""
        while s.hasOutput { rest += String(decoding: s.nextOutput(from: &source), as: UTF8.self) }
        var exporter = CSVExporter(utcOffset: .zero)
        #expect(rest == String(decoding: exporter.export(ExportFixtures.everyKind), as: UTF8.self) + ".\r\nOK status\r\nreadings 9\r\noldest 2026-11-22T06:05:00+00:00\r\n.\r\n")
    }

    @Test mutating func echoOfALineNoiseFloodStaysBounded() {
        var s = SerialExportSession(configuration: .init(maximumLineLength: 16))
        s.receive([UInt8](repeating: 0x41, count: 10_000), wallNow: now)
        #expect(s.nextOutput(from: &source).count == 16 + 16)
    }
}
