import Testing
import Web

/// Every limit exactly at its bound (accepted) and one past it (refused with its status,
/// before the rest of the request arrives), and what the parser holds meanwhile.
@Suite struct LimitsTests {
    let limits = HTTP.Limits()

    /// A request line of `length` bytes, without its CR LF.
    static func requestLine(length: Int) -> String {
        let fixed = "GET /".utf8.count + " HTTP/1.1".utf8.count
        return "GET /" + String(repeating: "a", count: length - fixed) + " HTTP/1.1"
    }

    @Test func requestLineAtItsBound() {
        let line = Self.requestLine(length: limits.requestLineBytes)
        #expect(line.utf8.count == 8192)
        #expect(ParserHarness.request(line + "\r\nHost: v\r\n\r\n")?.path.utf8.count == 8192 - 13)
    }

    @Test func requestLineOnePastItsBoundIs414BeforeItsEnd() {
        let line = Self.requestLine(length: limits.requestLineBytes + 1)
        #expect(ParserHarness.rejection(line + "\r\nHost: v\r\n\r\n") == HTTP.Rejection(.uriTooLong, "request line longer than 8192 bytes"))
        // Without its line end: refused as soon as it is one past, holding no more.
        var parser = HTTP.RequestParser()
        let (consumed, event) = parser.parse(Array(line.utf8)[...])
        #expect(consumed == line.utf8.count)
        #expect(event == .rejected(HTTP.Rejection(.uriTooLong, "request line longer than 8192 bytes")))
        #expect(parser.bufferedByteCount == 0)
    }

    /// A CR after a line at its bound is a line terminator on its way, not a byte too many.
    @Test func aCRAfterAFullRequestLineWaitsForItsLF() {
        var parser = HTTP.RequestParser()
        let (_, event) = parser.parse(Array((Self.requestLine(length: limits.requestLineBytes) + "\r").utf8)[...])
        #expect(event == nil)
        #expect(parser.bufferedByteCount == limits.requestLineBytes + 1)
    }

    static func fields(count: Int) -> String {
        "Host: v\r\n" + (1..<count).map { "X-\($0): \($0)\r\n" }.joined()
    }

    @Test func headerFieldCountAtItsBound() {
        #expect(ParserHarness.request("GET / HTTP/1.1\r\n" + Self.fields(count: 64) + "\r\n")?.headers.count == 64)
    }

    @Test func headerFieldCountOnePastItsBoundIs431() {
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\n" + Self.fields(count: 65) + "\r\n") ==
            HTTP.Rejection(.requestHeaderFieldsTooLarge, "more than 64 header fields"))
    }

    /// A header section of `length` bytes: Host, one padded field, the empty line.
    static func headerSection(length: Int) -> String {
        let host = "Host: v\r\n"
        let padding = length - host.utf8.count - "X: \r\n".utf8.count - 2
        return host + "X: " + String(repeating: "p", count: padding) + "\r\n\r\n"
    }

    @Test func headerSectionAtItsBound() {
        let section = Self.headerSection(length: limits.headerSectionBytes)
        #expect(section.utf8.count == 16384)
        #expect(ParserHarness.request("GET / HTTP/1.1\r\n" + section) != nil)
    }

    @Test func headerSectionOnePastItsBoundIs431() {
        let section = Self.headerSection(length: limits.headerSectionBytes + 1)
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\n" + section) ==
            HTTP.Rejection(.requestHeaderFieldsTooLarge, "header section longer than 16384 bytes"))
        // Without its end, one long field line is refused as it passes the bound.
        var harness = ParserHarness()
        harness.feed(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "p", count: 20000)).utf8))
        #expect(harness.events.count == 1)
        #expect(harness.parser.bufferedByteCount <= limits.bufferedBytes)
    }

    static func post(contentLength: Int) -> [UInt8] {
        Array("POST /x HTTP/1.1\r\nHost: v\r\nContent-Length: \(contentLength)\r\n\r\n".utf8) + [UInt8](repeating: 0x61, count: contentLength)
    }

    @Test func contentAtItsBound() {
        guard case let .request(request)? = ParserHarness.events(Self.post(contentLength: limits.bodyBytes)).first else {
            Issue.record("refused"); return
        }
        #expect(request.body.count == 65536)
    }

    /// Refused on its head: the content is never read.
    @Test func contentOnePastItsBoundIs413() {
        var harness = ParserHarness()
        harness.feed(Self.post(contentLength: limits.bodyBytes + 1))
        #expect(harness.events == [.rejected(HTTP.Rejection(.contentTooLarge, "content longer than 65536 bytes"))])
        #expect(harness.unconsumed == limits.bodyBytes + 1)
    }

    /// Smaller limits are honoured the same way (what a test of the connection uses).
    @Test func customLimits() {
        let small = HTTP.Limits(requestLineBytes: 20, headerFieldCount: 2, headerSectionBytes: 40, bodyBytes: 4)
        #expect(ParserHarness.request("GET /123456 HTTP/1.1\r\nHost: v\r\n\r\n", limits: small) != nil)
        #expect(ParserHarness.rejection("GET /1234567 HTTP/1.1\r\nHost: v\r\n\r\n", limits: small)?.status == .uriTooLong)
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\nHost: v\r\nA: 1\r\nB: 2\r\n\r\n", limits: small)?.status == .requestHeaderFieldsTooLarge)
        #expect(ParserHarness.rejection(Array("POST / HTTP/1.1\r\nHost: v\r\nContent-Length: 5\r\n\r\n".utf8), limits: small)?.status == .contentTooLarge)
        #expect(small.bufferedBytes == 20 + 1 + 40 + 4)
    }
}
