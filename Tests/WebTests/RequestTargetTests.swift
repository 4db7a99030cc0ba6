import Testing
import Web

/// Request targets (RFC 9112 §3.2), percent-decoding (RFC 3986 §2.1) and the form query
/// (WHATWG URL Standard §5.1).
@Suite struct RequestTargetTests {
    static func target(_ text: String) throws(HTTP.Rejection) -> HTTP.RequestTarget { try HTTP.RequestTarget(parsing: Array(text.utf8)) }

    @Test func pathIsPercentDecoded() throws {
        #expect(try Self.target("/a%20b").path == "/a b")
        #expect(try Self.target("/caf%C3%A9").path == "/café")
        #expect(try Self.target("/a%2Fb").path == "/a/b")
        #expect(try Self.target("/a+b").path == "/a+b")     // + is a space only in a query
        #expect(try Self.target("/../x/./y").path == "/../x/./y")
    }

    @Test(arguments: ["/%", "/%4", "/%zz", "/%FF", "/%00", "/a%0Ab", "#", "/x#frag", "*", "vigil:80", "x/y",
                      "http://", "http:///x", "http://user@vigil/", "/a b", "/\u{e9}"])
    func badTargetsAre400(text: String) {
        #expect(throws: HTTP.Rejection.self, "\(text)") { try Self.target(text) }
        do { _ = try Self.target(text) } catch { #expect(error.status == .badRequest && !error.reason.isEmpty) }
    }

    @Test func absoluteFormTakesPathAndQueryFromTheURI() throws {
        let target = try Self.target("HTTP://Vigil.local:8080?count=1")
        #expect(target.path == "/")
        #expect(target.authority == "Vigil.local:8080")
        #expect(target.query == ["count": "1"])
        #expect(try Self.target("https://v/api/v1/status.json").path == "/api/v1/status.json")
        #expect(try Self.target("/x").authority == nil)
    }

    @Test func queryIsAnOrderedFormWithPlusAsSpace() throws {
        let query = try Self.target("/s?a=b&c=d+e&a=%2B&empty=&flag&&=v&x=1=2").query
        #expect(query.items.map(\.name) == ["a", "c", "a", "empty", "flag", "", "x"])
        #expect(query.items.map(\.value) == ["b", "d e", "+", "", "", "v", "1=2"])
        #expect(query["a"] == "b")
        #expect(query.values(named: "a") == ["b", "+"])
        #expect(try Self.target("/s?").query.isEmpty)
    }

    /// Nightscout's filters: the bracketed name is kept whole, sent raw or percent-encoded.
    @Test func bracketedNamesAreKeptVerbatim() throws {
        let raw = try Self.target("/api/v1/entries.json?find[date][$gte]=1700000000000&count=288").query
        #expect(raw["find[date][$gte]"] == "1700000000000")
        #expect(raw["count"] == "288")
        let encoded = try Self.target("/api/v1/entries.json?find%5Bdate%5D%5B%24gte%5D=1700000000000").query
        #expect(encoded["find[date][$gte]"] == "1700000000000")
        let spaced = try Self.target("/api/v1/treatments.json?find[eventType]=BG+Check").query
        #expect(spaced["find[eventType]"] == "BG Check")
    }

    @Test func queryThatIsNotUTF8Is400() {
        #expect(throws: HTTP.Rejection(.badRequest, "query is not UTF-8 once percent-decoded")) { try Self.target("/s?a=%FF") }
        #expect(throws: HTTP.Rejection(.badRequest, "query holds a % that is not followed by two hex digits")) { try Self.target("/s?a=%") }
    }
}
