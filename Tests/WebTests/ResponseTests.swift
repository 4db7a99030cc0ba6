import Testing
import Web

@Suite struct ResponseTests {
    @Test func helpersNameTheirMediaType() {
        #expect(HTTP.Response.json("{}").headers["Content-Type"] == "application/json")
        #expect(HTTP.Response.text("hi").headers["content-type"] == "text/plain; charset=utf-8")
        #expect(HTTP.Response.html("<p>").headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(HTTP.Response.json("[1]", status: .notFound).status.code == 404)
        #expect(HTTP.Response.text("é").body == [0xC3, 0xA9])
    }

    /// RFC 9110 §15.5.6: a 405 lists the methods the resource takes.
    @Test func methodNotAllowedListsTheAllowedMethods() {
        let response = HTTP.Response.methodNotAllowed(allowing: [.get, .head])
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test func settingReplacesAField() {
        #expect(HTTP.Response.text("x").setting("Cache-Control", "no-store").headers["cache-control"] == "no-store")
    }
}
