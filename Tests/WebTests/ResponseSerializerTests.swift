import Testing
import Web

/// Response framing (RFC 9112 §4, §6; RFC 9110 §6.4.1, §8.6, §9.3.2).
@Suite struct ResponseSerializerTests {
    static func text(_ response: HTTP.Response, _ method: HTTP.Method = .get,
                     _ persistence: HTTP.ResponseSerializer.Persistence = .persistent, date: String? = nil) -> String {
        String(decoding: HTTP.ResponseSerializer.bytes(of: response, answering: method, persistence: persistence, date: date), as: UTF8.self)
    }

    @Test func statusLineFieldsLengthContent() {
        #expect(Self.text(.json("[]", status: .notFound)) == "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]")
        #expect(Self.text(HTTP.Response()) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func persistenceIsSaid() {
        #expect(Self.text(HTTP.Response(), .get, .closing) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(Self.text(HTTP.Response(), .get, .persistentForHTTP10) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
    }

    /// The framing is the serializer's: the application's own framing fields are dropped.
    @Test func applicationFramingFieldsAreReplaced() {
        let response = HTTP.Response(status: .ok, headers: ["Content-Length": "999", "Transfer-Encoding": "chunked",
                                                            "connection": "keep-alive", "Keep-Alive": "timeout=5", "X-Kept": "1"],
                                     body: Array("abc".utf8))
        #expect(Self.text(response) == "HTTP/1.1 200 OK\r\nX-Kept: 1\r\nContent-Length: 3\r\n\r\nabc")
    }

    /// A CR LF in a value would let a field or a whole response be written (response
    /// splitting): such fields are not sent.
    @Test func fieldsThatCannotBeSentAreDropped() {
        let response = HTTP.Response(headers: ["Location": "/x\r\nSet-Cookie: a=b", "Bad Name": "v", "": "v", "X-Null": "a\u{0}",
                                               "X-Good": "a\tb"])
        #expect(Self.text(response) == "HTTP/1.1 200 OK\r\nX-Good: a\tb\r\nContent-Length: 0\r\n\r\n")
        let phrase = HTTP.Response(status: HTTP.Status(code: 299, reasonPhrase: "Odd\r\nX: y"))
        #expect(Self.text(phrase).hasPrefix("HTTP/1.1 299 OddX: y\r\n"))
    }

    /// RFC 9110 §9.3.2: HEAD has GET's Content-Length and no content.
    @Test func headHasTheLengthButNoContent() {
        #expect(Self.text(.text("hello"), .head) == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n")
    }

    /// RFC 9110 §6.4.1, §8.6: 1xx, 204 and 304 have no content and no Content-Length.
    @Test(arguments: [HTTP.Status.noContent, .notModified, .continue])
    func statusesWithoutContent(status: HTTP.Status) {
        #expect(Self.text(HTTP.Response(status: status, body: Array("x".utf8))) == "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n\r\n")
    }

    @Test func dateIsAddedUnlessTheResponseHasOne() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(Self.text(HTTP.Response(), date: date) == "HTTP/1.1 200 OK\r\nDate: \(date)\r\nContent-Length: 0\r\n\r\n")
        #expect(Self.text(HTTP.Response(headers: ["Date": "x"]), date: date) == "HTTP/1.1 200 OK\r\nDate: x\r\nContent-Length: 0\r\n\r\n")
        #expect(Self.text(HTTP.Response(), date: "a\r\nb") == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func eventStreamHeadKeepsTheApplicationsCacheControl() {
        let head = String(decoding: HTTP.ResponseSerializer.eventStreamHead(headers: ["Cache-Control": "no-cache", "Content-Type": "x"], date: nil),
                          as: UTF8.self)
        #expect(head == "HTTP/1.1 200 OK\r\nCache-Control: no-cache\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
    }
}
