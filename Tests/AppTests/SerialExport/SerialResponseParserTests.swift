import Clocks
import Readings
import Testing
@testable import App

@Suite struct SerialResponseParserTests {
    @Test func requestEndsWithCRLF() {
        #expect(SerialResponseParser.request("EXPORT csv") == Array("EXPORT csv\r\n".utf8))
    }

    @Test func unstuffsTheBodyAndStopsAtTheDot() {
        var parser = SerialResponseParser()
        let wire = "noise from before\r\nOK export csv\r\na,b\r\n..hidden\n...two\r\nlast\n.\r\nOK ignored\r\n"
        let events = parser.receive(Array(wire.utf8))
        #expect(events == [.started("export csv"), .body(Array("a,b\r\n.hidden\n..two\r\nlast\n".utf8)), .finished])
        #expect(parser.isDone)
    }

    @Test func anErrorLineIsAFailure() {
        var parser = SerialResponseParser()
        #expect(parser.receive(Array("ERR unknown command 'X' (try HELP)\r\n".utf8)) == [.failed("unknown command 'X' (try HELP)")])
        #expect(parser.isDone)
    }

    @Test(arguments: [
        (".ERR history read failed: disk I/O error\r\n", "history read failed: disk I/O error"),
        (".what\n", "bad control line '.what'"),
    ])
    func anAbortedBodyIsAFailure(_ terminator: String, _ reason: String) {
        var parser = SerialResponseParser()
        let events = parser.receive(Array(("OK export csv\r\nx\r\n" + terminator).utf8))
        #expect(events == [.started("export csv"), .body(Array("x\r\n".utf8)), .failed(reason)])
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func anyChunkingGivesTheSameBody(_ size: Int) {
        let wire = Array("echo\r\nOK export csv\r\na,b\r\n..hidden\n\nlast\n.\r\nafter\r\n".utf8)
        var parser = SerialResponseParser()
        var events: [SerialResponseParser.Event] = []
        for start in stride(from: 0, to: wire.count, by: size) {
            events += parser.receive(Array(wire[start..<min(wire.count, start + size)]))
        }
        let body = events.flatMap { event -> [UInt8] in if case .body(let b) = event { b } else { [] } }
        #expect(events.first == .started("export csv"))
        #expect(body == Array("a,b\r\n.hidden\n\nlast\n".utf8))
        #expect(events.last == .finished)
    }

    @Test func aLineOfTheLongestLengthIsKeptAndOneByteMoreFails() {
        let longest = [UInt8](repeating: 0x61, count: SerialResponseParser.maximumLineLength)
        var parser = SerialResponseParser()
        let events = parser.receive(Array("OK export csv\r\n".utf8) + longest + [0x0A, 0x2E, 0x0A])
        #expect(events == [.started("export csv"), .body(longest + [0x0A]), .finished])

        // One byte more fails, whether the line's end is in the same chunk or never comes.
        let failure = SerialResponseParser.Event.failed("line longer than \(SerialResponseParser.maximumLineLength) bytes")
        var sameChunk = SerialResponseParser()
        #expect(sameChunk.receive(Array("OK export csv\r\n".utf8) + longest + [0x61, 0x0A]) == [.started("export csv"), failure])
        var endless = SerialResponseParser()
        _ = endless.receive(Array("OK export csv\r\n".utf8) + longest)
        #expect(!endless.isDone)
        #expect(endless.receive([0x61]) == [failure])
        #expect(endless.isDone)
    }

    @Test func withoutTheTerminatorTheExportIsNotDone() {
        // A cable pulled mid-export: the client sees no "." and must not call the file complete.
        var parser = SerialResponseParser()
        _ = parser.receive(Array("OK export csv\r\nrow\r\npartial ro".utf8))
        #expect(!parser.isDone)
    }

    @Test func roundTripsEveryFormatThroughTheSessionByteByByte() {
        // Every export format, with a device name that starts a line with "." in CSV.
        var readings = ExportFixtures.everyKind
        readings[0].device = ".dot"
        for format in ExportFormat.allCases {
            var source = ArraySource(readings: readings)
            var session = SerialExportSession(configuration: .init(utcOffset: .seconds(3600), pageSize: 2))
            session.receive(Array("EXPORT \(format.rawValue)\r\n".utf8), wallNow: ExportFixtures.t0)
            var wire: [UInt8] = []
            while session.hasOutput { wire += session.nextOutput(from: &source) }
            var parser = SerialResponseParser()
            var body: [UInt8] = []
            var others: [SerialResponseParser.Event] = []
            for byte in wire {  // worst-case chunking: one byte per read
                for event in parser.receive([byte]) {
                    if case let .body(bytes) = event { body += bytes } else { others.append(event) }
                }
            }
            var exporter = format.makeExporter(utcOffset: .seconds(3600))
            #expect(others == [.started("export \(format.rawValue)"), .finished])
            #expect(body == exporter.export(readings), "\(format)")
        }
    }
}
