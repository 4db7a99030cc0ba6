import Testing
import Web

/// Field names compare without regard to case, order and repeats are kept (RFC 9110 §5.1, §5.3).
@Suite struct HeadersTests {
    @Test func namesMatchWithoutRegardToCase() {
        let headers: HTTP.Headers = ["Content-Type": "application/json", "X-One": "1"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers.contains("x-one"))
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Types"] == nil)
    }

    @Test func repeatedNamesKeepTheirOrder() {
        var headers = HTTP.Headers()
        headers.append("Accept", "text/html")
        headers.append("Host", "vigil")
        headers.append("accept", "application/json")
        #expect(headers["Accept"] == "text/html")
        #expect(headers.values(for: "ACCEPT") == ["text/html", "application/json"])
        #expect(headers.fields.map(\.name) == ["Accept", "Host", "accept"])
    }

    @Test func setReplacesEveryLineOfTheName() {
        var headers: HTTP.Headers = ["A": "1", "b": "2", "a": "3"]
        headers.set("A", "4")
        #expect(headers.fields == [.init(name: "b", value: "2"), .init(name: "A", value: "4")])
        headers.remove("B")
        #expect(headers.count == 1)
    }

    /// RFC 9110 §5.6.1: lists across lines, elements trimmed, empty elements ignored.
    @Test func listElementsSpanLinesAndSkipEmptyOnes() {
        let headers: HTTP.Headers = ["Connection": "keep-alive, ,Upgrade ", "connection": "Close"]
        #expect(headers.listElements(for: "Connection") == ["keep-alive", "Upgrade", "Close"])
        #expect(headers.listContains("Connection", token: "close"))
        #expect(headers.listContains("Connection", token: "upgrade"))
        #expect(!headers.listContains("Connection", token: "keep"))
    }
}
