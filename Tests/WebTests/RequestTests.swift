import Testing
import Web

/// Persistence as RFC 9112 §9.3 decides it from the request.
@Suite struct RequestTests {
    @Test(arguments: [
        (HTTP.Version.http11, nil as String?, true),
        (.http11, "close", false),
        (.http11, "Keep-Alive, CLOSE", false),
        (.http11, "keep-alive", true),
        (.http10, nil, false),
        (.http10, "keep-alive", true),
        (.http10, "Keep-Alive", true),
        (.http10, "keep-alive, close", false),
    ])
    func persistenceFollowsVersionAndConnection(version: HTTP.Version, connection: String?, persistent: Bool) {
        var headers = HTTP.Headers()
        if let connection { headers.append("Connection", connection) }
        let request = HTTP.Request(method: .get, path: "/", version: version, headers: headers)
        #expect(request.wantsPersistentConnection == persistent)
    }

    @Test func targetDefaultsToThePath() {
        let request = HTTP.Request(method: .post, path: "/api/v1/entries.json", body: Array("{}".utf8))
        #expect(request.target == "/api/v1/entries.json")
        #expect(request.bodyText == "{}")
    }

    @Test func queryLooksUpTheFirstValueByExactName() {
        let query = HTTP.Query([.init(name: "count", value: "10"), .init(name: "find[date][$gte]", value: "1700000000000"),
                                .init(name: "count", value: "20")])
        #expect(query["count"] == "10")
        #expect(query.values(named: "count") == ["10", "20"])
        #expect(query["Count"] == nil)
        #expect(query["find[date][$gte]"] == "1700000000000")
        #expect(query.items(withPrefix: "find[").map(\.name) == ["find[date][$gte]"])
    }
}
