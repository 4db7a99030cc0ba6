import Testing
@testable import App

/// Authentication as Nightscout's `lib/authorization/index.js` takes it (docs/nightscout-api.md
/// "Authentication").
@Suite struct NightscoutCredentialsTests {
    typealias F = NightscoutFixtures
    static let refusal = #"{"status":401,"message":"Unauthorized","description":"Invalid/Missing"}"#

    func status(_ request: Nightscout.Request, api: Nightscout.API = F.api) -> Int { F.answer(request, api: api).status }

    @Test func theSecretsSHA1InTheHeaderOrTheQuery() {
        #expect(status(F.get("/api/v1/entries.json", headers: [("api-secret", F.secretSHA1)])) == 200)
        #expect(status(F.get("/api/v1/entries.json", headers: [("API-Secret", F.secretSHA1.uppercased())])) == 200)
        #expect(status(F.get("/api/v1/entries.json", [("secret", F.secretSHA1)], headers: [])) == 200)
        // The secret itself is not its hash.
        #expect(status(F.get("/api/v1/entries.json", headers: [("api-secret", F.secret)])) == 401)
    }

    @Test func theTokenInTheQueryOrAsABearer() {
        #expect(status(F.get("/api/v1/entries.json", [("token", F.token)], headers: [])) == 200)
        #expect(status(F.get("/pebble", headers: [("Authorization", "Bearer \(F.token)")])) == 200)
        #expect(status(F.get("/api/v1/treatments.json", headers: [("authorization", "bearer \(F.token)")])) == 401)
        #expect(status(F.get("/api/v1/devicestatus.json", [("token", F.token + "x")], headers: [])) == 401)
    }

    @Test func everythingButStatusIsRefusedWithNightscoutsBodyAndNeverBuildsASnapshot() {
        let presented = "not-the-token-1234567"
        for path in ["/api/v1/entries.json", "/api/v1/entries/current.json", "/api/v1/entries/sgv.json", "/api/v1/treatments.json",
                     "/api/v1/devicestatus.json", "/pebble"] {
            var built = 0
            let response = F.api.respond(to: F.get(path, [("token", presented)], headers: [("api-secret", presented)])) {
                built += 1
                return F.snapshot
            }
            #expect(response.status == 401)
            #expect(F.body(response) == Self.refusal)
            #expect(!F.body(response).contains(presented))
            #expect(built == 0)
        }
    }

    @Test func anOpenAPIReadsWithoutACredential() {
        var configuration = Nightscout.API.Configuration(credentials: .none)
        configuration.readableWithoutAuthentication = true
        let open = Nightscout.API(configuration: configuration)
        #expect(status(F.get("/api/v1/entries.json", headers: []), api: open) == 200)
        #expect(F.body(F.answer(F.get("/api/v1/status.json", headers: []), api: open)).contains(#""authDefaultRoles":"readable""#))
        // Nothing configured and nothing open: nobody reads.
        #expect(status(F.get("/api/v1/entries.json"), api: Nightscout.API(configuration: .init(credentials: .none))) == 401)
    }

    @Test func configuredCredentialsAreChecked() {
        #expect(throws: Nightscout.Credentials.Problem.secretTooShort) { try Nightscout.Credentials(apiSecret: "short", token: nil) }
        #expect(throws: Nightscout.Credentials.Problem.tokenTooShort) { try Nightscout.Credentials(apiSecret: nil, token: "short") }
        #expect(throws: Nightscout.Credentials.Problem.unusableCharacter("token")) {
            try Nightscout.Credentials(apiSecret: nil, token: "has a space in it")
        }
        // Descriptions say what is wrong, never the value.
        #expect(!"\(Nightscout.Credentials.Problem.unusableCharacter("token"))".contains("space in it"))
    }

    @Test func comparisonLooksAtEveryByte() {
        let a = Nightscout.Credentials.digest(Array("abc".utf8))
        var b = a
        #expect(Nightscout.Credentials.constantTimeEqual(a, b))
        b[31] ^= 1
        #expect(!Nightscout.Credentials.constantTimeEqual(a, b))
        #expect(!Nightscout.Credentials.constantTimeEqual(a, Array(a.prefix(31))))
    }

    @Test func bearerIsOneSchemeAndOneToken() {
        #expect(Nightscout.Credentials.bearer("Bearer abc") == "abc")
        #expect(Nightscout.Credentials.bearer("Bearer  abc") == nil)
        #expect(Nightscout.Credentials.bearer("Basic abc") == nil)
        #expect(Nightscout.Credentials.bearer(nil) == nil)
    }
}
