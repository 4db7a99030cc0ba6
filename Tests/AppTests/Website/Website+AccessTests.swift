@testable import App
import Testing
import Web

/// The token's carriers and the form reader, alone.
@Suite struct WebsiteAccessTests {
    static let site = Website(configuration: Website.Configuration(token: "abcdefghijklmnop-0123"))

    static func request(_ headers: HTTP.Headers, body: String = "") -> HTTP.Request {
        HTTP.Request(method: .post, path: "/login", headers: headers, body: Array(body.utf8))
    }

    @Test func theCookieIsFoundAmongOthersAndInAnyCookieField() {
        #expect(Self.site.credential(of: Self.request(["Cookie": "a=1; vigil_token=abcdefghijklmnop-0123; b=2"])) == .cookie)
        #expect(Self.site.credential(of: Self.request(["Cookie": "a=1", "cookie": "vigil_token=abcdefghijklmnop-0123"])) == .cookie)
        #expect(Self.site.credential(of: Self.request(["Cookie": "xvigil_token=abcdefghijklmnop-0123"])) == nil)
        #expect(Self.site.credential(of: Self.request(["Cookie": "vigil_token=abcdefghijklmnop-012"])) == nil)
        #expect(Self.site.credential(of: Self.request(["Authorization": "Bearer abcdefghijklmnop-0123"])) == .bearer)
        #expect(Self.site.credential(of: Self.request(["Authorization": "Basic abcdefghijklmnop-0123"])) == nil)
    }

    @Test func theOriginMustBeThisServersOwn() {
        let host: HTTP.Headers = ["Host": "vigil.local:8080", "Origin": "http://vigil.local:8080"]
        #expect(Self.site.isSameOrigin(Self.request(host), credential: .cookie))
        #expect(!Self.site.isSameOrigin(Self.request(["Host": "vigil.local:8080", "Origin": "http://vigil.local"]), credential: .cookie))
        #expect(!Self.site.isSameOrigin(Self.request(["Host": "vigil.local:8080", "Origin": "null"]), credential: .bearer))
        #expect(!Self.site.isSameOrigin(Self.request(["Host": "vigil.local:8080"]), credential: .cookie))
        #expect(Self.site.isSameOrigin(Self.request(["Host": "vigil.local:8080"]), credential: .bearer))
    }

    @Test func aFormIsReadOnlyWithItsType() {
        let form = Website.form(of: Self.request(["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"], body: "alarm=signal-loss%3Acgm&x=a+b"))
        #expect(form?["alarm"] == "signal-loss:cgm")
        #expect(form?["x"] == "a b")
        #expect(Website.form(of: Self.request(["Content-Type": "text/plain"], body: "alarm=low")) == nil)
        #expect(Website.form(of: Self.request([:], body: "alarm=low")) == nil)
        #expect(Website.form(of: Self.request(["Content-Type": "application/x-www-form-urlencoded"], body: "alarm=%zz")) == nil)
    }
}
