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
}
