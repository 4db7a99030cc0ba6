import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import App

/// board/wiring-raspberry-pi.svg: well-formed SVG that names the pins the profiles use.
/// (board/check.sh checks the same for CI without Swift, and renders it.)
@Suite struct WiringDiagramTests {
    static let url = BoardProfileTests.boardDirectory.appendingPathComponent("wiring-raspberry-pi.svg")

    /// Collects the element names and the text, failing on the first XML error.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [String] = []
        var text = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(name)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    /// On Linux `parse()` returns true for a document that ends inside an element (it only
    /// sets `parserError`), so both are checked.
    static func parse(_ parser: XMLParser) -> Bool { parser.parse() && parser.parserError == nil }

    @Test func isWellFormedSVG() throws {
        let parser = try #require(XMLParser(contentsOf: Self.url))
        let collector = Collector()
        parser.delegate = collector
        #expect(Self.parse(parser), "\(parser.parserError.map(String.init(describing:)) ?? "")")
        #expect(collector.elements.first == "svg")
        #expect(collector.elements.contains("title"))
    }

    @Test func aBrokenFileIsCaught() {
        // The check above can fail: a mismatched tag, a bare "&" and an unclosed root are rejected.
        for broken in ["<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>", "<svg><text>a & b</text></svg>", "<svg>"] {
            let parser = XMLParser(data: Data(broken.utf8))
            let collector = Collector()
            parser.delegate = collector
            #expect(!Self.parse(parser), "\(broken)")
        }
    }

    @Test func namesTheDefaultPinsOfEveryPiBoard() throws {
        let parser = try #require(XMLParser(contentsOf: Self.url))
        let collector = Collector()
        parser.delegate = collector
        _ = parser.parse()
        let text = collector.text
        for name in BoardProfileTests.piBoards {
            let profile = try #require(BoardProfile.builtIn(named: name))
            for line in [profile.buzzer, profile.led, profile.button].compactMap({ $0 }) {
                #expect(text.contains("pin \(line.headerPin!)"))
                #expect(text.contains("GPIO \(line.offset)"))
            }
            #expect(text.contains(profile.chip.label!))
            let source = try #require(BoardProfile.builtInSources.first { $0.name == name }).text
            #expect(source.contains("board/wiring-raspberry-pi.svg"))
        }
        for part in ["R1 1 kΩ", "R2", "10 kΩ", "R3 330 Ω", "Q1", "2N2222", "BC337", "D1", "1N4148", "S1", "LED1", "BZ1"] {
            #expect(text.contains(part), "the diagram should name \(part)")
        }
    }
}
