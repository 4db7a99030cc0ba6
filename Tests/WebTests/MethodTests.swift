import Testing
import Web

/// Method tokens (RFC 9110 §9.1).
@Suite struct MethodTests {
    @Test func methodTokensAreCaseSensitive() {
        #expect(HTTP.Method(token: Array("GET".utf8)) == .get)
        #expect(HTTP.Method(token: Array("HEAD".utf8)) == .head)
        #expect(HTTP.Method(token: Array("get".utf8)) == nil)
        #expect(HTTP.Method(token: Array("PUT".utf8)) == nil)
    }
}
