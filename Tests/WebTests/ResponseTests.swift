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

    @Test func statusClasses() {
        #expect(HTTP.Status.noContent.forbidsContent)
        #expect(HTTP.Status.notModified.forbidsContent)
        #expect(HTTP.Status.continue.forbidsContent)
        #expect(!HTTP.Status.ok.forbidsContent)
        #expect(HTTP.Status.badRequest.isError && HTTP.Status.serviceUnavailable.isError && !HTTP.Status.found.isError)
        #expect(HTTP.Response.text("x").setting("Cache-Control", "no-store").headers["cache-control"] == "no-store")
    }

    @Test func methodTokensAreCaseSensitive() {
        #expect(HTTP.Method(token: Array("GET".utf8)) == .get)
        #expect(HTTP.Method(token: Array("HEAD".utf8)) == .head)
        #expect(HTTP.Method(token: Array("get".utf8)) == nil)
        #expect(HTTP.Method(token: Array("PUT".utf8)) == nil)
    }
}
