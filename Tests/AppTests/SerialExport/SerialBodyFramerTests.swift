import Testing
@testable import App

@Suite struct SerialBodyFramerTests {
    @Test func stuffsDotsAtLineStartsOnlyEvenAcrossChunks() {
        var framer = SerialBodyFramer()
        var out = framer.stuff(Array(".a.b\n".utf8))
        out += framer.stuff(Array("x\n".utf8))
        out += framer.stuff(Array("\r\n".utf8))
        out += framer.stuff(Array(".".utf8))  // chunk ends right after a newline: still a line start
        out += framer.stuff(Array(".c\n".utf8))
        out += framer.end()
        #expect(String(decoding: out, as: UTF8.self) == "..a.b\nx\n\r\n...c\n.\r\n")
    }

    @Test func endsAnOpenLineBeforeTheTerminator() {
        var framer = SerialBodyFramer()
        #expect(String(decoding: framer.stuff(Array("]".utf8)) + framer.end(error: "boom"), as: UTF8.self) == "]\r\n.ERR boom\r\n")
        #expect(String(decoding: framer.end(), as: UTF8.self) == ".\r\n")
    }
}
