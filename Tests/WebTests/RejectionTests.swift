import Testing
import Web

@Suite struct RejectionTests {
    /// A rejection is answered with its status and its reason as plain text.
    @Test func answeredWithItsReason() {
        let rejection = HTTP.Rejection(.lengthRequired, "send Content-Length")
        #expect(rejection.response.status == .lengthRequired)
        #expect(rejection.response.body == Array("send Content-Length\n".utf8))
        #expect(rejection.response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(rejection.description == "411 Length Required: send Content-Length")
    }
}
