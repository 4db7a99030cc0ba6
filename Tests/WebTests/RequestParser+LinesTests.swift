import Testing
import Web

/// The request line (RFC 9112 §3) and field lines (RFC 9112 §5), and each way they are refused.
@Suite struct RequestParserLinesTests {
    @Test(arguments: [
        ("get / HTTP/1.1", HTTP.Status.notImplemented),       // methods are case-sensitive (RFC 9110 §9.1)
        ("PUT / HTTP/1.1", .notImplemented),
        ("DELETE / HTTP/1.1", .notImplemented),
        ("OPTIONS * HTTP/1.1", .notImplemented),
        ("CONNECT vigil:443 HTTP/1.1", .notImplemented),
        ("GET  / HTTP/1.1", .badRequest),                      // two spaces
        ("GET / HTTP/1.1 ", .badRequest),                      // trailing space
        (" GET / HTTP/1.1", .badRequest),
        ("GET\t/ HTTP/1.1", .badRequest),
        ("GET /", .badRequest),                                // HTTP/0.9
        ("GET", .badRequest),
        ("GET / HTTP/2.0", .httpVersionNotSupported),
        ("GET / HTTP/0.9", .httpVersionNotSupported),
        ("GET / http/1.1", .badRequest),
        ("GET / HTTP/1.10", .badRequest),
        ("GET / HTTP/1", .badRequest),
        ("GET * HTTP/1.1", .badRequest),
        ("GET / HTTP/1.1\rX", .badRequest),                    // bare CR (RFC 9112 §2.2)
    ])
    func badRequestLines(line: String, status: HTTP.Status) {
        let rejection = ParserHarness.rejection(line + "\r\nHost: v\r\n\r\n")
        #expect(rejection?.status == status, "\(line): \(String(describing: rejection))")
        #expect(rejection.map { !$0.reason.isEmpty } == true)
    }

    /// RFC 9112 §2.3: a higher minor version is read as HTTP/1.1.
    @Test func higherMinorVersionIsHTTP11() {
        #expect(ParserHarness.request("GET / HTTP/1.2\r\nHost: v\r\n\r\n")?.version == .http11)
    }

    /// Garbage is refused after a few bytes, not after the 8 KiB a request line may take.
    @Test func aTLSHandshakeIsRefusedAtItsFirstByte() {
        var parser = HTTP.RequestParser()
        let (consumed, event) = parser.parse([0x16, 0x03, 0x01, 0x02, 0x00][...])
        #expect(consumed == 5)
        #expect(event == .rejected(HTTP.Rejection(.badRequest, "request line does not start with a method")))
    }

    @Test func aLongUnknownMethodIsRefusedBeforeItsSpace() {
        var parser = HTTP.RequestParser()
        let (_, event) = parser.parse(Array("PROPFIND".utf8)[...])
        #expect(event == .rejected(HTTP.Rejection(.notImplemented, "method not implemented (GET, HEAD and POST are)")))
    }

    /// RFC 9112 §5.2: obsolete line folding is refused with 400, saying so.
    @Test func obsoleteLineFoldingIsRefused() {
        let rejection = ParserHarness.rejection("GET / HTTP/1.1\nHost: v\nX-Long: a\n\tb\n\n".crlf)
        #expect(rejection == HTTP.Rejection(.badRequest, "obsolete line folding (a field line starting with whitespace)"))
        // RFC 9112 §2.2: whitespace before the first field line, likewise.
        #expect(ParserHarness.rejection("GET / HTTP/1.1\n Host: v\n\n".crlf)?.status == .badRequest)
    }

    @Test(arguments: [
        "Host : v",          // whitespace before the colon (RFC 9112 §5.1)
        ": v",               // no name
        "NoColon",
        "Ho\"st: v",         // not a token
        "X: a\u{0}b",        // NUL (RFC 9110 §5.5)
        "X: a\u{1B}b",       // another control
        "X: a\u{7F}",        // DEL
    ])
    func badFieldLines(field: String) {
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\nHost: v\r\n\(field)\r\n\r\n")?.status == .badRequest, "\(field)")
    }

    @Test func bareCRInAFieldIsRefused() {
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\nHost: v\r\nX: a\rb\r\n\r\n")?.status == .badRequest)
    }

    /// RFC 9110 §5.5: optional whitespace around a value is not part of it; inside, it is.
    @Test func valuesAreTrimmedOfOptionalWhitespace() throws {
        let request = try #require(ParserHarness.request("GET / HTTP/1.1\r\nHost:v\r\nX:  a \t b \t\r\nEmpty:\r\n\r\n"))
        #expect(request.headers["Host"] == "v")
        #expect(request.headers["x"] == "a \t b")
        #expect(request.headers["Empty"] == "")
        #expect(request.headers.fields.map(\.name) == ["Host", "X", "Empty"])
    }

    /// obs-text is opaque data (RFC 9110 §5.5): accepted, decoded with replacement.
    @Test func obsTextIsAccepted() throws {
        var bytes = Array("GET / HTTP/1.1\r\nHost: v\r\nX: a".utf8)
        bytes += [0xFF, 0xC3, 0xA9]
        bytes += Array("\r\n\r\n".utf8)
        guard case let .request(request)? = ParserHarness.events(bytes).first else { Issue.record("refused"); return }
        #expect(request.headers["X"] == "a\u{FFFD}é")
    }
}
