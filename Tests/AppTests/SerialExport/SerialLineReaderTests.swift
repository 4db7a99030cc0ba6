import Testing
@testable import App

@Suite struct SerialLineReaderTests {
    @Test(arguments: [
        ("HELP\r\nSTATUS\r\n", ["HELP", "STATUS"]),
        ("HELP\nSTATUS\n", ["HELP", "STATUS"]),
        ("HELP\rSTATUS\r", ["HELP", "STATUS"]),
        ("HELP\n\r\n\r\rSTATUS\n", ["HELP", "STATUS"]),  // blank lines ignored
        ("HEPL\u{7F}\u{7F}LP\r", ["HELP"]),  // DEL erases, as a terminal's backspace key sends
        ("\u{08}STAT\u{08}TUS\n", ["STATUS"]),
        ("no end yet", []),
    ])
    func splitsLines(_ input: String, _ lines: [String]) {
        var reader = SerialLineReader(maximumLength: 256)
        #expect(reader.receive(Array(input.utf8)) == lines.map { .line($0) })
    }

    @Test func crlfSplitAcrossReadsCountsOnce() {
        var reader = SerialLineReader(maximumLength: 256)
        #expect(reader.receive(Array("HELP\r".utf8)) == [.line("HELP")])
        #expect(reader.receive(Array("\nSTATUS".utf8)) == [])
        #expect(reader.receive(Array("\n".utf8)) == [.line("STATUS")])
    }

    @Test func aLineOfExactlyTheLimitIsKeptOneMoreIsRefused() {
        var reader = SerialLineReader(maximumLength: 8)
        #expect(reader.receive(Array("12345678\n".utf8)) == [.line("12345678")])
        #expect(reader.receive(Array("123456789".utf8)) == [.tooLong])
        #expect(reader.receive(Array("more and more".utf8)) == [])
        #expect(reader.receive(Array("\nHELP\n".utf8)) == [.line("HELP")])
    }
}
