import Testing
import Web

/// The response parser fed whole, a byte at a time and in uneven pieces: each way must give
/// the same outcome (the pieces a socket hands over are arbitrary). Every failure names what
/// was wrong; every limit holds.
@Suite struct ResponseParserTests {
    typealias Outcome = HTTP.ResponseParser.Outcome

    enum Feeding: CaseIterable { case whole, byteAtATime, unevenPieces }

    /// The outcome of `text` (LF line ends made CRLF unless `crlf` is false) fed `feeding`,
    /// then the close when `close` and the bytes did not already decide it.
    static func parse(_ text: String, crlf: Bool = true, feeding: Feeding = .whole, close: Bool = false,
                      limits: HTTP.ResponseParser.Limits = .init(), head: Bool = false) -> Outcome {
        let bytes = Array((crlf ? text.crlf : text).utf8)
        return parse(bytes, feeding: feeding, close: close, limits: limits, head: head)
    }

    static func parse(_ bytes: [UInt8], feeding: Feeding, close: Bool = false,
                      limits: HTTP.ResponseParser.Limits = .init(), head: Bool = false) -> Outcome {
        var parser = HTTP.ResponseParser(limits: limits, requestWasHead: head)
        var pieces: [ArraySlice<UInt8>] = []
        switch feeding {
        case .whole: pieces = [bytes[...]]
        case .byteAtATime: pieces = bytes.indices.map { bytes[$0...$0] }
        case .unevenPieces:
            var index = 0, size = 1
            while index < bytes.count {
                pieces.append(bytes[index..<min(bytes.count, index + size)])
                index += size
                size = size % 7 + 2
            }
        }
        for piece in pieces {
            let outcome = parser.receive(piece)
            if outcome != .needsMore { return outcome }
        }
        return close ? parser.peerClosed() : .needsMore
    }

    /// The same outcome every way it is fed.
    static func outcome(_ text: String, crlf: Bool = true, close: Bool = false, limits: HTTP.ResponseParser.Limits = .init(),
                        head: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let outcomes = Feeding.allCases.map { parse(text, crlf: crlf, feeding: $0, close: close, limits: limits, head: head) }
        #expect(Set(outcomes.map { "\($0)" }).count == 1, "\(outcomes)", sourceLocation: sourceLocation)
        return outcomes[0]
    }

    static func response(_ outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation) -> HTTP.ClientResponse? {
        guard case let .complete(response) = outcome else {
            Issue.record("not a response: \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return response
    }

    static func malformed(_ outcome: Outcome) -> String? {
        if case let .failed(.malformedResponse(reason)) = outcome { reason } else { nil }
    }

    // MARK: Framing

    @Test func aContentLengthBody() throws {
        let response = try #require(Self.response(Self.outcome("HTTP/1.1 200 OK\nContent-Type: application/json\nContent-Length: 13\n\n{\"ok\": true }")))
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == Array("{\"ok\": true }".utf8))
    }

    /// The response is complete at its last byte, without waiting for the close.
    @Test func completeWithoutTheClose() {
        #expect(Self.parse("HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", close: false) != .needsMore)
        #expect(Self.parse("HTTP/1.1 200 OK\nContent-Length: 3\n\nhi", close: false) == .needsMore)
    }

    /// RFC 9112 §2.2: a bare LF ends a line too.
    @Test func bareLFLineEnds() throws {
        let response = try #require(Self.response(Self.outcome("HTTP/1.1 201 Created\nContent-Length: 0\n\n", crlf: false)))
        #expect(response.status == 201)
    }

    /// RFC 9112 §7.1's chunked coding: sizes in hex (either case), extensions ignored, a
    /// trailer section checked and dropped.
    @Test func aChunkedBodyWithExtensionsAndTrailers() throws {
        let text = "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5;name=value\nhello\n1A \n" + String(repeating: "z", count: 26)
            + "\n0\nExpires: never\nX-Checksum: 1\n\n"
        let response = try #require(Self.response(Self.outcome(text)))
        #expect(response.body == Array(("hello" + String(repeating: "z", count: 26)).utf8))
        #expect(response.headers["Expires"] == nil, "trailers are not merged into the header")
        #expect(response.headers["transfer-encoding"] == "chunked")
    }

    @Test func aChunkedBodyWithLeadingZerosAndNoTrailers() throws {
        let response = try #require(Self.response(Self.outcome("HTTP/1.1 200 OK\nTransfer-Encoding: Chunked\n\n0003\nabc\n000\n\n")))
        #expect(response.body == Array("abc".utf8))
    }

    /// No length: the body runs to the close (RFC 9112 §6.3 item 8), HTTP/1.0 too.
    @Test(arguments: ["HTTP/1.1", "HTTP/1.0"])
    func aBodyReadToTheClose(version: String) throws {
        let text = "\(version) 200 OK\nContent-Type: text/plain\n\nall of this\nand this"
        #expect(Self.parse(text, close: false) == .needsMore)
        let response = try #require(Self.response(Self.outcome(text, close: true)))
        #expect(response.body == Array("all of this\r\nand this".utf8))
    }

    /// 204, 304 and an answer to HEAD have no body, whatever Content-Length says.
    @Test func responsesWithoutABody() throws {
        for status in ["204 No Content", "304 Not Modified"] {
            let response = try #require(Self.response(Self.outcome("HTTP/1.1 \(status)\nContent-Length: 10\n\n")))
            #expect(response.body.isEmpty)
        }
        let head = try #require(Self.response(Self.outcome("HTTP/1.1 200 OK\nContent-Length: 10\n\n", head: true)))
        #expect(head.headers["content-length"] == "10" && head.body.isEmpty)
    }

    /// Interim responses (100 Continue, 103 Early Hints with fields) are passed over.
    @Test func interimResponsesArePassedOver() throws {
        let text = "HTTP/1.1 100 Continue\n\nHTTP/1.1 103 Early Hints\nLink: </a.css>; rel=preload\n\nHTTP/1.1 200 OK\nContent-Length: 2\n\nok"
        let response = try #require(Self.response(Self.outcome(text)))
        #expect(response.status == 200)
        #expect(response.headers["link"] == nil)
        #expect(response.body == Array("ok".utf8))
    }

    @Test func endlessInterimResponsesFail() {
        let text = String(repeating: "HTTP/1.1 100 Continue\n\n", count: 9) + "HTTP/1.1 200 OK\nContent-Length: 0\n\n"
        #expect(Self.malformed(Self.outcome(text))?.contains("interim") == true)
    }

    @Test func switchingProtocolsFails() {
        #expect(Self.malformed(Self.outcome("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\n\n"))?.contains("101") == true)
    }

    /// RFC 9112 §5.2: a folded line is joined to the one before with a space.
    @Test func obsFoldIsJoined() throws {
        let response = try #require(Self.response(Self.outcome("HTTP/1.1 200 OK\nX-Long: first\n  second\n\tthird\nContent-Length: 0\n\n")))
        #expect(response.headers["x-long"] == "first second third")
    }

    /// The reason phrase may be empty or absent (RFC 9112 §4), and holds anything printable.
    @Test func reasonPhrases() throws {
        for line in ["HTTP/1.1 200 ", "HTTP/1.1 200", "HTTP/1.1 200 Très bien\tok", "HTTP/1.1 599 Whatever"] {
            let response = try #require(Self.response(Self.outcome("\(line)\nContent-Length: 0\n\n")), "\(line)")
            #expect((200...599).contains(response.status))
        }
    }

    @Test func contentLengthSaidTwiceAlike() throws {
        let response = try #require(Self.response(Self.outcome("HTTP/1.1 200 OK\nContent-Length: 2, 2\nContent-Length: 2\n\nok")))
        #expect(response.body == Array("ok".utf8))
    }

    /// Once the response is whole, more bytes change nothing.
    @Test func bytesAfterTheResponseAreIgnored() {
        var parser = HTTP.ResponseParser()
        #expect(parser.receive(Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx".utf8)) != .needsMore)
        #expect(parser.receive(Array("HTTP/1.1 500 Oops\r\n\r\n".utf8)) == .needsMore)
        #expect(parser.peerClosed() == .needsMore)
    }

    // MARK: Malformed

    @Test(arguments: [
        "HTTP/1.1 OK\n\n", "http/1.1 200 OK\n\n", "HTTP/1.1  200 OK\n\n", "HTTP/1.1 20 OK\n\n", "HTTP/1.1 2000 OK\n\n",
        "ICY 200 OK\n\n", "HTTP/11 200 OK\n\n", "HTTP/1.1 200OK\n\n", "\nHTTP/1.1 200 OK\n\n", "garbage\n\n",
        "HTTP/1.1 200 O\u{7}K\n\n",
    ])
    func aBadStatusLineFails(line: String) {
        #expect(Self.malformed(Self.outcome(line))?.contains("status line") == true)
    }

    @Test func otherVersionsAndCodesFail() {
        #expect(Self.malformed(Self.outcome("HTTP/2.0 200 OK\n\n")) == "HTTP version 2.0 is not HTTP/1.x")
        #expect(Self.malformed(Self.outcome("HTTP/1.1 099 Low\n\n")) == "status code 99 is not 100 to 599")
        #expect(Self.malformed(Self.outcome("HTTP/1.1 600 High\n\n")) == "status code 600 is not 100 to 599")
    }

    @Test(arguments: [
        ("X-Bad : value", "not a token"), ("No colon here", "without a name"), (": empty name", "without a name"),
        ("X-Control: a\u{1}b", "control character"), ("Bad\u{7F}Name: x", "not a token"),
    ])
    func aBadFieldLineFails(line: String, problem: String) {
        let reason = Self.malformed(Self.outcome("HTTP/1.1 200 OK\n\(line)\nContent-Length: 0\n\n"))
        #expect(reason?.contains(problem) == true, "\(reason ?? "no failure")")
    }

    @Test func aFoldBeforeAnyFieldFails() {
        #expect(Self.malformed(Self.outcome("HTTP/1.1 200 OK\n  folded\n\n"))?.contains("starts with whitespace") == true)
    }

    /// RFC 9112 §2.2: a bare CR is not a line end, and not let through.
    @Test func aBareCRFails() {
        #expect(Self.malformed(Self.outcome("HTTP/1.1 200 OK\r\nX-A: 1\rX-B: 2\r\n\r\n", crlf: false)) == "a bare CR in a line")
    }

    @Test(arguments: [
        ("Transfer-Encoding: chunked\nContent-Length: 3", "both Transfer-Encoding and Content-Length"),
        ("Transfer-Encoding: gzip", "is not chunked alone"),
        ("Transfer-Encoding: gzip, chunked", "is not chunked alone"),
        ("Transfer-Encoding: chunked, chunked", "is not chunked alone"),
        ("Transfer-Encoding: chunked\nTransfer-Encoding: identity", "is not chunked alone"),
        ("Content-Length: 5, 6", "not one decimal number"),
        ("Content-Length: 5\nContent-Length: 6", "not one decimal number"),
        ("Content-Length: abc", "not one decimal number"),
        ("Content-Length: -1", "not one decimal number"),
        ("Content-Length: +1", "not one decimal number"),
        ("Content-Length:", "not one decimal number"),
        ("Content-Encoding: gzip\nContent-Length: 3", "encoded (gzip)"),
    ])
    func untrustworthyFramingFails(fields: String, problem: String) {
        let reason = Self.malformed(Self.outcome("HTTP/1.1 200 OK\n\(fields)\n\nabc", close: true))
        #expect(reason?.contains(problem) == true, "\(reason ?? "no failure")")
    }

    @Test func transferEncodingInHTTP10Fails() {
        #expect(Self.malformed(Self.outcome("HTTP/1.0 200 OK\nTransfer-Encoding: chunked\n\n0\n\n")) == "Transfer-Encoding in an HTTP/1.0 response")
    }

    @Test(arguments: [
        ("zz\nabc\n0\n\n", "not hexadecimal"), ("\nabc\n0\n\n", "not hexadecimal"), ("3 x\nabc\n0\n\n", "not hexadecimal"),
        ("3\nabcd\n0\n\n", "not followed by CRLF"), ("3\nabc0\n\n", "not followed by CRLF"),
        ("3;" + String(repeating: "e", count: 5000) + "\nabc\n0\n\n", "chunk-size line longer"),
        ("3\nabc\n0\nBad Trailer\n\n", "trailer"),
    ])
    func aBadChunkFails(chunks: String, problem: String) {
        let reason = Self.malformed(Self.outcome("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n" + chunks))
        #expect(reason?.contains(problem) == true, "\(reason ?? "no failure")")
    }

    // MARK: Limits

    static let small = HTTP.ResponseParser.Limits(headerBytes: 200, headerFields: 4, bodyBytes: 100)

    /// A header past the limit fails as soon as it is past it, before its line ends.
    @Test func aLongHeaderFailsBeforeItEnds() {
        let text = "HTTP/1.1 200 OK\nX-Big: " + String(repeating: "a", count: 300)
        #expect(Self.outcome(text, limits: Self.small) == .failed(.responseTooLarge))
        let longStatus = "HTTP/1.1 200 " + String(repeating: "a", count: 300)
        #expect(Self.outcome(longStatus, limits: Self.small) == .failed(.responseTooLarge))
    }

    @Test func theHeaderLimitCountsLineEnds() {
        // 17 + 4 × 45 + 2 = 199 bytes: within 200; one more field would pass it.
        let field = "X-" + String(repeating: "f", count: 38) + ": 1\n"
        let fits = "HTTP/1.1 200 OK\n" + String(repeating: field, count: 4) + "\n"
        #expect(Self.response(Self.outcome(fits, close: true, limits: .init(headerBytes: 200, headerFields: 10, bodyBytes: 100))) != nil)
        let over = "HTTP/1.1 200 OK\n" + String(repeating: field, count: 5) + "\n"
        #expect(Self.outcome(over, limits: .init(headerBytes: 200, headerFields: 10, bodyBytes: 100)) == .failed(.responseTooLarge))
    }

    @Test func tooManyFieldsFail() {
        #expect(Self.outcome("HTTP/1.1 200 OK\nA: 1\nB: 2\nC: 3\nD: 4\nE: 5\n\n", limits: Self.small) == .failed(.responseTooLarge))
    }

    /// A declared length past the limit fails at the head, before any of the body is held.
    @Test func aLargeContentLengthFailsAtOnce() {
        #expect(Self.outcome("HTTP/1.1 200 OK\nContent-Length: 101\n\n", limits: Self.small) == .failed(.responseTooLarge))
        #expect(Self.outcome("HTTP/1.1 200 OK\nContent-Length: 99999999999999999999999\n\n") == .failed(.responseTooLarge))
        let exact = Self.outcome("HTTP/1.1 200 OK\nContent-Length: 100\n\n" + String(repeating: "b", count: 100), limits: Self.small)
        #expect(Self.response(exact)?.body.count == 100)
    }

    @Test func chunksAddingUpPastTheLimitFail() {
        let chunk = "32\n" + String(repeating: "c", count: 50) + "\n"
        #expect(Self.response(Self.outcome("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n" + chunk + chunk + "0\n\n", limits: Self.small)) != nil)
        #expect(Self.outcome("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n" + chunk + chunk + "1\n", limits: Self.small) == .failed(.responseTooLarge))
        #expect(Self.outcome("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nffffffffffffffffff\n") == .failed(.responseTooLarge))
    }

    @Test func aBodyToTheClosePastTheLimitFails() {
        #expect(Self.outcome("HTTP/1.1 200 OK\n\n" + String(repeating: "d", count: 101), limits: Self.small) == .failed(.responseTooLarge))
    }

    @Test func trailersCountAgainstTheHeaderLimit() {
        let text = "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n0\nX-T: " + String(repeating: "t", count: 300) + "\n\n"
        #expect(Self.outcome(text, limits: Self.small) == .failed(.responseTooLarge))
    }

    // MARK: The close

    @Test(arguments: [
        "", "HTTP/1.1 200", "HTTP/1.1 200 OK\nContent-Length: 5\n", "HTTP/1.1 200 OK\nContent-Length: 5\n\nabc",
        "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5\nab", "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n0\n",
        "HTTP/1.1 100 Continue\n\n",
    ])
    func aCloseBeforeTheEndFails(text: String) {
        #expect(Self.outcome(text, close: true) == .failed(.closedBeforeResponse))
    }

    @Test func hasStartedSaysWhetherAnyByteCame() {
        var parser = HTTP.ResponseParser()
        #expect(!parser.hasStarted)
        _ = parser.receive([UInt8]())
        #expect(!parser.hasStarted)
        _ = parser.receive(Array("H".utf8))
        #expect(parser.hasStarted)
    }
}
