extension HTTP.RequestParser {
    /// The empty line has arrived: the head is checked as a whole (Host, framing, Expect)
    /// and the content, if any, is read next.
    mutating func endOfHead(_ head: Head) -> Event? {
        do throws(HTTP.Rejection) {
            try Self.checkHost(head)
            let length = try contentLength(head)
            if length == 0 {
                state = .expectingRequestLine
                return .request(head.request)
            }
            state = .readingContent(head, remaining: length)
            return try Self.expectsContinue(head) ? .continueExpected : nil
        } catch {
            return refuse(error)
        }
    }

    /// RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, for more than one Host line
    /// in any request, and for an invalid Host value. An absolute-form target's authority
    /// wins over Host (§3.2.2), but Host is still required.
    private static func checkHost(_ head: Head) throws(HTTP.Rejection) {
        let hosts = head.headers.values(for: "Host")
        if hosts.count > 1 { throw HTTP.Rejection(.badRequest, "more than one Host field") }
        guard let host = hosts.first else {
            if head.version == .http11 { throw HTTP.Rejection(.badRequest, "HTTP/1.1 request without a Host field") }
            return
        }
        // uri-host [":" port] (RFC 9110 §7.2, RFC 3986 §3.2.2): reg-name, IPv4 or a
        // bracketed IPv6 literal. Empty is allowed (an authority-less URI, RFC 9110 §7.2).
        let allowed = host.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "%"), UInt8(ascii: "!"), UInt8(ascii: "$"),
                 UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
                 UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="): true
            default: false
            }
        }
        guard allowed else { throw HTTP.Rejection(.badRequest, "Host field is not a host and port") }
    }

    /// The content's length (RFC 9112 §6.3). Only Content-Length frames a request here;
    /// docs/http.md says why chunked request content is refused.
    private func contentLength(_ head: Head) throws(HTTP.Rejection) -> Int {
        let lengths = head.headers.values(for: "Content-Length")
        if head.headers.contains("Transfer-Encoding") {
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing; with
            // Content-Length too it is a smuggling attempt, rejected and closed.
            if head.version == .http10 { throw HTTP.Rejection(.badRequest, "Transfer-Encoding in an HTTP/1.0 request") }
            if !lengths.isEmpty { throw HTTP.Rejection(.badRequest, "both Transfer-Encoding and Content-Length") }
            let codings = head.headers.listElements(for: "Transfer-Encoding").map { $0.lowercased() }
            // RFC 9112 §6.3 (3): chunked not last leaves the length unknown: 400.
            guard codings.last == "chunked" else { throw HTTP.Rejection(.badRequest, "Transfer-Encoding does not end in chunked") }
            // RFC 9112 §6.1: a transfer coding the server does not understand: 501.
            if let other = codings.first(where: { $0 != "chunked" }) {
                throw HTTP.Rejection(.notImplemented, "transfer coding \(other.prefix(32)) not implemented")
            }
            // RFC 9110 §15.5.12: 411 asks the client to send the content with a Content-Length.
            throw HTTP.Rejection(.lengthRequired, "chunked request content is not accepted: send Content-Length")
        }
        guard let text = lengths.first else { return 0 }
        // RFC 9112 §6.3 (5): an invalid Content-Length is a 400. A list ("5, 5") or a repeat
        // is one of the cases RFC 9110 §8.6 lets a recipient reject, and it is rejected.
        guard lengths.count == 1, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw HTTP.Rejection(.badRequest, "Content-Length is not one decimal number")
        }
        // Digits past the limit's own are too large without being converted (no overflow).
        let digits = text.drop { $0 == "0" }
        guard digits.count <= String(limits.bodyBytes).count, let length = Int(digits.isEmpty ? "0" : String(digits)),
              length <= limits.bodyBytes else {
            throw HTTP.Rejection(.contentTooLarge, "content longer than \(limits.bodyBytes) bytes")
        }
        return length
    }

    /// RFC 9110 §10.1.1: `100-continue` is the only expectation; a server may answer any
    /// other with 417, and must ignore it in an HTTP/1.0 request.
    private static func expectsContinue(_ head: Head) throws(HTTP.Rejection) -> Bool {
        guard head.version == .http11, let expect = head.headers["Expect"] else { return false }
        guard expect.lowercased() == "100-continue" else { throw HTTP.Rejection(.expectationFailed, "only Expect: 100-continue is understood") }
        return true
    }
}
