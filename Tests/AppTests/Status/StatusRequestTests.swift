import App
import Testing

/// The status socket's request line: the two requests, and everything else refused with a
/// reason (vectors written for this protocol, which is Vigil's own: see StatusRequest).
@Suite struct StatusRequestTests {
    @Test(arguments: [
        ("STATUS", StatusRequest.text), ("STATUS JSON", .json), ("status", .text), ("Status json", .json),
        ("  STATUS   JSON ", .json),
    ])
    func goodLines(line: String, expected: StatusRequest) throws {
        #expect(try StatusRequest(line: Array(line.utf8)) == expected)
    }

    @Test(arguments: [
        ("STATUS XML", StatusRequest.Rejection.unknown("STATUS XML")),
        ("HELP", .unknown("HELP")),
        ("GET / HTTP/1.1", .unknown("GET / HTTP/1.1")),
        ("JSON STATUS", .unknown("JSON STATUS")),
        ("", .empty),
        ("   ", .empty),
    ])
    func unknownLinesAreRefused(line: String, expected: StatusRequest.Rejection) {
        #expect(throws: expected) { try StatusRequest(line: Array(line.utf8)) }
    }

    @Test(arguments: [
        [0x00] as [UInt8],                   // NUL
        [0x53, 0x54, 0x1B, 0x5B, 0x41],      // "ST" and an escape sequence
        [0x16, 0x03, 0x01, 0x02, 0x00],      // the start of a TLS ClientHello
        [0xC3, 0x28],                        // invalid UTF-8
        [0x53, 0x54, 0x41, 0x7F],            // DEL
    ])
    func binaryGarbageIsNotText(bytes: [UInt8]) {
        #expect(throws: StatusRequest.Rejection.notText) { try StatusRequest(line: bytes) }
    }

    @Test func anUnknownLineIsQuotedShortInTheReply() {
        let long = String(repeating: "A", count: 200)
        #expect(throws: StatusRequest.Rejection.unknown(String(repeating: "A", count: 64))) { try StatusRequest(line: Array(long.utf8)) }
        #expect(StatusRequest.errorLine(.unknown("HELP")) == "ERR unknown request \"HELP\": send STATUS or STATUS JSON\n")
        #expect(StatusRequest.errorLine(.tooLong(limit: 256)) == "ERR request longer than 256 bytes: send STATUS or STATUS JSON\n")
        #expect(StatusRequest.errorLine(.notText) == "ERR request is not a line of text: send STATUS or STATUS JSON\n")
        #expect(StatusRequest.errorLine(.empty) == "ERR no request: send STATUS or STATUS JSON\n")
    }

    // MARK: Reader

    @Test func readerWaitsForTheLineEndAcrossPieces() {
        var reader = StatusRequest.Reader()
        #expect(reader.receive(Array("STAT".utf8)) == nil)
        #expect(reader.receive(Array("US JS".utf8)) == nil)
        #expect(reader.receive(Array("ON\r\n".utf8)) == .success(.json))
        // Bytes after the request change nothing.
        #expect(reader.receive(Array("STATUS\n".utf8)) == .success(.json))
        #expect(reader.outcome == .success(.json))
    }

    @Test func readerTakesAPlainLineFeed() {
        var reader = StatusRequest.Reader()
        #expect(reader.receive(Array("STATUS\nSTATUS JSON\n".utf8)) == .success(.text))
    }

    @Test func readerRefusesAtTheLimitWithoutHoldingMore() {
        var reader = StatusRequest.Reader()
        #expect(reader.receive([UInt8](repeating: 0x41, count: StatusRequest.maximumLineLength - 1)) == nil)
        #expect(reader.receive([0x41]) == .failure(.tooLong(limit: 256)))
        #expect(StatusRequest.maximumLineLength == 256)
    }

    @Test func aLineOfExactlyTheLimitTerminatorIncludedIsParsedOneMoreIsNot() {
        let fits = "STATUS" + String(repeating: " ", count: StatusRequest.maximumLineLength - 8) + "\r\n"
        #expect(fits.utf8.count == StatusRequest.maximumLineLength)
        var reader = StatusRequest.Reader()
        #expect(reader.receive(Array(fits.utf8)) == .success(.text))
        let over = "STATUS" + String(repeating: " ", count: StatusRequest.maximumLineLength - 7) + "\r\n"
        var longer = StatusRequest.Reader()
        #expect(longer.receive(Array(over.utf8)) == .failure(.tooLong(limit: 256)))
    }

    @Test func endOfStreamParsesAnUnterminatedLine() {
        var reader = StatusRequest.Reader()
        reader.receive(Array("STATUS JSON".utf8))
        #expect(reader.endOfStream() == .success(.json))
        var silent = StatusRequest.Reader()
        #expect(silent.endOfStream() == .failure(.empty))
        var garbage = StatusRequest.Reader()
        #expect(garbage.receive([0xFF, 0xFE, 0x0A]) == .failure(.notText))
    }
}
