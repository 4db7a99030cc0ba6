import Testing
import Web

/// The parser as a whole: RFC 9112's examples, pieces split anywhere, pipelining, what it
/// holds. The request line and field lines are in RequestParser+LinesTests, framing and Host in
/// RequestParser+HeadTests, the limits in LimitsTests.
@Suite struct RequestParserTests {
    /// RFC 9112 §3.2.1's origin-form example.
    @Test func originFormExample() throws {
        let request = try #require(ParserHarness.request("GET /where?q=now HTTP/1.1\nHost: www.example.com\n\n".crlf))
        #expect(request.method == .get)
        #expect(request.path == "/where")
        #expect(request.query == ["q": "now"])
        #expect(request.version == .http11)
        #expect(request.headers["host"] == "www.example.com")
        #expect(request.body.isEmpty)
        #expect(request.target == "/where?q=now")
    }

    /// RFC 9112 §3.2.2's absolute-form example: the path is taken from the URI.
    @Test func absoluteFormExample() throws {
        let request = try #require(ParserHarness.request(
            "GET http://www.example.org/pub/WWW/TheProject.html HTTP/1.1\nHost: www.example.org\n\n".crlf))
        #expect(request.path == "/pub/WWW/TheProject.html")
        #expect(request.target == "http://www.example.org/pub/WWW/TheProject.html")
    }

    /// A POST with content as a browser's form sends it.
    @Test func postWithContent() throws {
        let request = try #require(ParserHarness.request(
            "POST /alarms/snooze HTTP/1.1\nHost: vigil.local:8080\nContent-Type: application/x-www-form-urlencoded\nContent-Length: 18\n\n".crlf
                + "alarm=low&minutes=30"))
        #expect(request.method == .post)
        // Exactly Content-Length bytes: the last two are the start of whatever follows.
        #expect(request.bodyText == "alarm=low&minutes=")
    }

    /// RFC 9112 §2.2: a bare LF ends a line as CR LF does, and empty lines before the
    /// request line are skipped.
    @Test func bareLineFeedsAndLeadingEmptyLines() throws {
        let request = try #require(ParserHarness.request("\r\n\nHEAD / HTTP/1.0\nUser-Agent: t\n\n"))
        #expect(request.method == .head)
        #expect(request.version == .http10)
        #expect(request.headers["User-Agent"] == "t")
    }

    static let splitSamples: [String] = [
        "GET /api/v1/entries.json?count=2&find[date][$gte]=1700000000000 HTTP/1.1\nHost: v\nAccept: */*\n\n".crlf,
        "POST /x HTTP/1.1\nHost: v\nContent-Length: 5\n\n".crlf + "hello" + "GET / HTTP/1.0\n\n".crlf,
        "GET / HTTP/1.1\nHost: v\nExpect: 100-continue\nContent-Length: 3\n\n".crlf + "abc",
        "GET / HTTP/1.1\nHost: v\n folded\n\n".crlf,
        "GET / HTTP/1.1\nHost: v\nContent-Length: 1\nTransfer-Encoding: chunked\n\n".crlf,
        "PUT / HTTP/1.1\nHost: v\n\n".crlf,
    ]

    /// The same bytes in two pieces, split at every position, give the same events as the
    /// bytes whole: no state is lost at a piece's edge.
    @Test(arguments: splitSamples)
    func everyTwoWaySplitGivesTheSameEvents(text: String) {
        let bytes = Array(text.utf8)
        let whole = ParserHarness.events(bytes)
        #expect(!whole.isEmpty)
        for split in 0...bytes.count {
            var harness = ParserHarness()
            harness.feed(bytes[..<split])
            harness.feed(bytes[split...])
            #expect(harness.events == whole, "split at \(split)")
        }
    }

    @Test(arguments: splitSamples)
    func oneByteAtATimeGivesTheSameEvents(text: String) {
        let bytes = Array(text.utf8)
        var harness = ParserHarness()
        for byte in bytes { harness.feed([byte]) }
        #expect(harness.events == ParserHarness.events(bytes))
    }

    /// Pipelined requests come out one per call, in order; the parser never reads past the
    /// end of the request it returns.
    @Test func pipelinedRequestsComeOutOneAtATime() throws {
        let first = "GET /a HTTP/1.1\nHost: v\n\n".crlf
        let bytes = Array((first + "GET /b HTTP/1.1\nHost: v\n\n".crlf).utf8)
        var parser = HTTP.RequestParser()
        let (consumed, event) = parser.parse(bytes[...])
        #expect(consumed == first.utf8.count)
        guard case let .request(a)? = event else { Issue.record("no first request"); return }
        #expect(a.path == "/a")
        #expect(!parser.isInsideRequest)
        let (rest, second) = parser.parse(bytes[consumed...])
        #expect(rest == bytes.count - consumed)
        guard case let .request(b)? = second else { Issue.record("no second request"); return }
        #expect(b.path == "/b")
    }

    /// After a rejection the parser takes nothing more: the connection answers and closes.
    @Test func nothingIsConsumedAfterARejection() {
        var harness = ParserHarness()
        harness.feed(Array("DELETE / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8))
        #expect(harness.events == [.rejected(HTTP.Rejection(.notImplemented, "method not implemented (GET, HEAD and POST are)"))])
        #expect(harness.unconsumed > 0)
        #expect(harness.parser.rejection?.status == .notImplemented)
        let (consumed, event) = harness.parser.parse(Array("GET".utf8)[...])
        #expect(consumed == 0 && event == nil)
    }

    @Test func insideRequestTracksPartialInput() {
        var parser = HTTP.RequestParser()
        #expect(!parser.isInsideRequest)
        _ = parser.parse(Array("\r\n".utf8)[...])
        #expect(!parser.isInsideRequest)
        _ = parser.parse(Array("G".utf8)[...])
        #expect(parser.isInsideRequest)
        #expect(parser.bufferedByteCount == 1)
    }

    /// RFC 9110 §10.1.1: a 100-continue request is told to go on before its content comes.
    @Test func continueIsExpectedBeforeTheContent() {
        let head = "POST /x HTTP/1.1\nHost: v\nExpect: 100-Continue\nContent-Length: 2\n\n".crlf
        var harness = ParserHarness()
        harness.feed(Array(head.utf8))
        #expect(harness.events == [.continueExpected])
        harness.feed(Array("ok".utf8))
        guard case let .request(request)? = harness.events.last else { Issue.record("no request"); return }
        #expect(request.bodyText == "ok")
    }

    /// RFC 9110 §10.1.1: ignored in HTTP/1.0, and irrelevant without content.
    @Test func continueIsNotExpectedOfHTTP10OrWithoutContent() {
        let http10 = ParserHarness.events("POST /x HTTP/1.0\nExpect: 100-continue\nContent-Length: 1\n\nz".crlf)
        #expect(http10.count == 1)
        let empty = ParserHarness.events("GET /x HTTP/1.1\nHost: v\nExpect: 100-continue\n\n".crlf)
        #expect(empty.count == 1)
        if case .request = empty.first {} else { Issue.record("expected a request") }
    }

    @Test func otherExpectationsAre417() {
        #expect(ParserHarness.rejection("POST /x HTTP/1.1\nHost: v\nExpect: teapot\nContent-Length: 1\n\n".crlf)?.status == .expectationFailed)
    }
}
