import Testing
import Web

/// The head as a whole: Host (RFC 9112 §3.2) and framing (RFC 9112 §6).
@Suite struct RequestParserHeadTests {
    static func head(_ version: String = "HTTP/1.1", _ fields: String) -> String {
        "POST /x \(version)\r\n" + fields.crlf + "\r\n"
    }

    @Test func hostIsRequiredOnHTTP11Only() {
        #expect(ParserHarness.rejection("GET / HTTP/1.1\r\n\r\n") == HTTP.Rejection(.badRequest, "HTTP/1.1 request without a Host field"))
        #expect(ParserHarness.request("GET / HTTP/1.0\r\n\r\n") != nil)
        // RFC 9112 §3.2.2: even with an absolute-form target.
        #expect(ParserHarness.rejection("GET http://v/ HTTP/1.1\r\n\r\n")?.status == .badRequest)
    }

    @Test(arguments: ["Host: a\nHost: a\n", "Host: a\nhost: b\n", "Host: a b\n", "Host: a/b\n", "Host: a@b\n"])
    func badOrRepeatedHostIs400(fields: String) {
        #expect(ParserHarness.rejection(Self.head("HTTP/1.0", fields))?.status == .badRequest, "\(fields)")
    }

    @Test(arguments: ["Host: vigil.local:8080\n", "Host: [::1]:8080\n", "Host: 192.168.1.20\n", "Host:\n"])
    func goodHostsAreAccepted(fields: String) {
        #expect(ParserHarness.request(Self.head("HTTP/1.1", fields)) != nil, "\(fields)")
    }

    @Test(arguments: [
        ("Transfer-Encoding: chunked\n", HTTP.Status.lengthRequired),    // RFC 9110 §15.5.12
        ("Transfer-Encoding: Chunked\n", .lengthRequired),
        ("Transfer-Encoding: gzip, chunked\n", .notImplemented),        // RFC 9112 §6.1
        ("Transfer-Encoding: gzip\nTransfer-Encoding: chunked\n", .notImplemented),
        ("Transfer-Encoding: chunked, gzip\n", .badRequest),            // RFC 9112 §6.3 (3)
        ("Transfer-Encoding: gzip\n", .badRequest),
        ("Transfer-Encoding: chunked\nContent-Length: 3\n", .badRequest), // RFC 9112 §6.1
        ("Content-Length: abc\n", .badRequest),                          // RFC 9112 §6.3 (5)
        ("Content-Length: -1\n", .badRequest),
        ("Content-Length: +5\n", .badRequest),
        ("Content-Length: 5, 5\n", .badRequest),
        ("Content-Length: 5\nContent-Length: 5\n", .badRequest),
        ("Content-Length:\n", .badRequest),
        ("Content-Length: 99999999999999999999999999\n", .contentTooLarge),
    ])
    func framingFaults(fields: String, status: HTTP.Status) {
        #expect(ParserHarness.rejection(Self.head("HTTP/1.1", "Host: v\n" + fields))?.status == status, "\(fields)")
    }

    /// RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
    @Test func transferEncodingInHTTP10Is400() {
        #expect(ParserHarness.rejection(Self.head("HTTP/1.0", "Transfer-Encoding: chunked\n")) ==
            HTTP.Rejection(.badRequest, "Transfer-Encoding in an HTTP/1.0 request"))
    }

    @Test func leadingZerosInContentLengthAreOneNumber() throws {
        let request = try #require(ParserHarness.request(Self.head("HTTP/1.1", "Host: v\nContent-Length: 0000000000000000000000000003\n") + "abc"))
        #expect(request.bodyText == "abc")
    }

    /// RFC 9112 §6.3 (6): a request without either field has no content.
    @Test func noFramingFieldsMeansNoContent() throws {
        let request = try #require(ParserHarness.request(Self.head("HTTP/1.1", "Host: v\n")))
        #expect(request.body.isEmpty)
    }
}
