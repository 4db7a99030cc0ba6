import Alarms
import App
import Clocks
import Simulator
import Testing
import Web

/// The page's server driven through the supervisor on the virtual clock: raw HTTP in, the bytes
/// it writes back read and parsed. Access, the routes, health and the Nightscout API.
@Suite struct SupervisorWebTests {
    static let token = "s3cret-token-for-tests-0123456789"
    /// SHA-1 of `token` in hex: Nightscout's `api-secret`.
    static let apiSecret = "772ac7434b6ffaca29dfc9be331c0c124c4cefc3"
    static let cookie = "Cookie: vigil_token=\(token)"
    static let origin = "Origin: http://vigil.local:8080"
    static func web(_ configuration: inout Supervisor.Configuration) {
        configuration.website = Website.Configuration(token: token)
    }
    static func https(_ configuration: inout Supervisor.Configuration) {
        configuration.website = Website.Configuration(token: token, isHTTPS: true)
    }
    static let csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static func expectSecured(_ response: WebResponse?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response?.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
        #expect(response?.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
        #expect(response?.header("Referrer-Policy") == "same-origin", sourceLocation: sourceLocation)
        #expect(response?.header("X-Frame-Options") == "DENY", sourceLocation: sourceLocation)
        #expect(response?.header("Content-Security-Policy") == csp, sourceLocation: sourceLocation)
    }

    // MARK: Health

    @Test func healthIsOpenAndSaysOkWithoutAFault() throws {
        var world = try SupervisorWorld(configure: Self.web)
        world.advance(by: .seconds(5))
        #expect(world.supervisor.servesWeb)
        let answer = world.webGet("/health")
        let response = try #require(answer)
        #expect(response.status == 200)
        #expect(response.body == #"{"status":"ok"}"#)
        Self.expectSecured(response)
    }

    @Test func healthNamesAStandingFault() throws {
        var world = try SupervisorWorld(configure: Self.web, failingFiles: [.alarmState])
        world.advance(by: .seconds(5))
        #expect(world.storageFaultRaised)
        let answer = world.webGet("/health")
        let response = try #require(answer)
        #expect(response.status == 503)
        #expect(response.body == #"{"status":"fault","faults":["fault:storage-failing"]}"#)
    }

    @Test func aSocketAcceptedWhileThePageIsOffIsClosed() throws {
        var world = try SupervisorWorld()
        #expect(!world.supervisor.servesWeb)
        let id = world.webConnect()
        #expect(world.web.closed.contains(id))
    }

    @Test func theDateIsSentOnlyOnceTheClockIsBelievable() throws {
        var set = try SupervisorWorld(configure: Self.web)
        let answer = set.webGet("/health")
        #expect(try #require(answer).header("Date") != nil)
        var unset = try SupervisorWorld(configure: Self.web, wallAtStart: SupervisorWorld.unsetClock)
        let unsetAnswer = unset.webGet("/health")
        #expect(try #require(unsetAnswer).status == 200)
        #expect(unsetAnswer?.header("Date") == nil)
    }

    // MARK: Access

    @Test func withoutACookieThePageIsTheSignInPage() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let signIn = world.webGet("/")
        #expect(signIn?.status == 200)
        #expect(signIn?.body.contains(#"name="token""#) == true)
        Self.expectSecured(signIn)
        let page = world.webGet("/", [Self.cookie])
        #expect(page?.status == 200)
        #expect(page?.body == Website.Assets.page)
    }

    @Test func thePagesFilesAreServedWithTheirTypes() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let script = world.webGet("/app.js"), style = world.webGet("/app.css"), icon = world.webGet("/icon.svg")
        #expect(script?.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script?.body == Website.Assets.script)
        #expect(style?.header("Content-Type") == "text/css; charset=utf-8")
        #expect(icon?.header("Content-Type") == "image/svg+xml")
        Self.expectSecured(icon)
        // What browsers ask for on their own, without the token: the same icon, not a 401.
        let favicon = world.webGet("/favicon.ico")
        #expect(favicon?.status == 200 && favicon?.body == Website.Assets.icon)
        let head = world.webRequest("HEAD /app.js HTTP/1.1\r\nHost: vigil.local:8080\r\n\r\n")
        #expect(head?.status == 200 && head?.body == "")
    }

    @Test func signingInSetsTheCookieExactlyAndSendsThePageHome() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let response = world.webPost("/login", form: "token=\(Self.token)", [Self.origin])
        #expect(response?.status == 303)
        #expect(response?.header("Location") == "/")
        #expect(response?.header("Set-Cookie") == "vigil_token=\(Self.token); HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000")
        Self.expectSecured(response)
    }

    @Test func aWrongTokenGetsTheSignInPageAgainWith401() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let response = world.webPost("/login", form: "token=not-the-token-at-all", [Self.origin])
        #expect(response?.status == 401)
        #expect(response?.body.contains("That token is not right.") == true)
        #expect(response?.header("Set-Cookie") == nil)
        let empty = world.webPost("/login", form: "", [Self.origin])
        #expect(empty?.status == 401)
    }

    @Test func aLinkWithTheTokenSignsInAndLeavesTheAddressBar() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let response = world.webGet("/?token=\(Self.token)")
        #expect(response?.status == 303)
        #expect(response?.header("Location") == "/")
        #expect(response?.header("Set-Cookie")?.hasPrefix("vigil_token=\(Self.token);") == true)
        let wrong = world.webGet("/?token=guess")
        #expect(wrong?.status == 401)
    }

    @Test func signingOutClearsTheCookie() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let response = world.webPost("/logout", form: "", [Self.origin, Self.cookie])
        #expect(response?.status == 303)
        #expect(response?.header("Set-Cookie") == "vigil_token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
    }

    @Test func overHTTPSTheCookieIsSecureAndTheOriginHTTPS() throws {
        var world = try SupervisorWorld(configure: Self.https)
        let plain = world.webPost("/login", form: "token=\(Self.token)", [Self.origin])
        #expect(plain?.status == 403)
        let response = world.webPost("/login", form: "token=\(Self.token)", ["Origin: https://vigil.local:8080"])
        #expect(response?.status == 303)
        #expect(response?.header("Set-Cookie")?.hasSuffix("; Secure") == true)
    }

    @Test func theDataNeedsTheTokenByCookieOrBearer() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let none = world.webGet("/state.json")
        #expect(none?.status == 401)
        Self.expectSecured(none)
        #expect(world.webGet("/state.json", ["Authorization: Bearer wrong-token-0000000000"])?.status == 401)
        #expect(world.webGet("/state.json", ["Cookie: vigil_token=wrong-token-0000000000"])?.status == 401)
        #expect(world.webGet("/state.json", ["Cookie: other=1; vigil_token=\(Self.token)"])?.status == 200)
        #expect(world.webGet("/state.json", ["Authorization: Bearer \(Self.token)"])?.status == 200)
        #expect(world.webGet("/events")?.status == 401)
        #expect(world.webGet("/report")?.status == 401)
        #expect(world.webGet("/nowhere", [Self.cookie])?.status == 404)
    }

    @Test func aPostFromAnotherOriginIsRefused() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let crossSite = world.webPost("/alarms/snooze-all", form: "minutes=60", [Self.cookie, "Origin: http://evil.example"])
        #expect(crossSite?.status == 403)
        Self.expectSecured(crossSite)
        // A cookie alone is what a cross-site form carries.
        #expect(world.webPost("/alarms/snooze-all", form: "minutes=60", [Self.cookie])?.status == 403)
        // A script with the token as Bearer and no Origin may act.
        #expect(world.webPost("/alarms/snooze-all", form: "minutes=60", ["Authorization: Bearer \(Self.token)"])?.status == 200)
        #expect(world.webPost("/alarms/snooze-all", form: "minutes=60", [Self.cookie, Self.origin])?.status == 200)
        // A sign-in from elsewhere would be a login CSRF.
        #expect(world.webPost("/login", form: "token=\(Self.token)", ["Origin: http://evil.example"])?.status == 403)
    }

    @Test func theWrongMethodIs405WithAllow() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let post = world.webPost("/state.json", form: "", [Self.cookie, Self.origin])
        #expect(post?.status == 405)
        #expect(post?.header("Allow") == "GET, HEAD")
        let get = world.webGet("/alarms/snooze", [Self.cookie])
        #expect(get?.status == 405)
        #expect(get?.header("Allow") == "POST")
        let headStream = world.webRequest("HEAD /events HTTP/1.1\r\nHost: vigil.local:8080\r\n\(Self.cookie)\r\n\r\n")
        #expect(headStream?.status == 405)
        #expect(headStream?.header("Allow") == "GET")
    }

    /// The token travels in a link, a form, a cookie and a header; no log line holds it.
    @Test func noLogLineEverHoldsTheToken() throws {
        var world = try SupervisorWorld(configure: Self.web)
        _ = world.webGet("/?token=\(Self.token)")
        _ = world.webGet("/?token=\(Self.token)x")
        _ = world.webPost("/login", form: "token=\(Self.token)", [Self.origin])
        _ = world.webPost("/login", form: "token=\(Self.token)x", [Self.origin])
        _ = world.webGet("/state.json", [Self.cookie])
        _ = world.webGet("/state.json", ["Authorization: Bearer \(Self.token)x"])
        _ = world.webGet("/api/v1/entries.json?token=\(Self.token)x")
        _ = world.webPost("/alarms/snooze", form: "alarm=urgent-low", [Self.cookie, "Origin: http://evil.example"])
        #expect(world.logged("web: signed in"))
        #expect(world.logged("web: POST /login refused"))
        #expect(!world.logs.contains { $0.text.contains(Self.token) || $0.text.contains(Self.apiSecret) })
    }

    // MARK: The Nightscout API

    @Test func theNightscoutAPIReadsWithTheTokenAsItsSecret() throws {
        var world = try SupervisorWorld(configure: Self.web, glucose: GlucoseScript([.init(at: .zero, milligramsPerDeciliter: 123)]))
        world.advance(by: .seconds(30))
        let refused = world.webGet("/api/v1/entries.json")
        #expect(refused?.status == 401)
        let bySecret = world.webGet("/api/v1/entries.json?count=3", ["api-secret: \(Self.apiSecret)"])
        #expect(bySecret?.status == 200)
        #expect(bySecret?.body.contains(#""sgv":123"#) == true)
        #expect(bySecret?.header("Content-Type") == "application/json; charset=utf-8")
        Self.expectSecured(bySecret)
        let byToken = world.webGet("/api/v1/entries/sgv.json?token=\(Self.token)")
        #expect(byToken?.status == 200)
        let status = world.webGet("/api/v1/status.json")
        #expect(status?.status == 200)
        let pebble = world.webGet("/pebble?token=\(Self.token)")
        #expect(pebble?.body.contains("\"sgv\":\"123\"") == true)
    }

    @Test func aNightscoutPostIs405WithAllowGetHead() throws {
        var world = try SupervisorWorld(configure: Self.web)
        let response = world.webPost("/api/v1/entries.json", form: "", ["api-secret: \(Self.apiSecret)"])
        #expect(response?.status == 405)
        #expect(response?.header("Allow") == "GET, HEAD")
    }
}
