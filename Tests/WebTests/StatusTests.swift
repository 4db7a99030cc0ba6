import Testing
import Web

/// Status classes (RFC 9110 §15, §6.4.1).
@Suite struct StatusTests {
    @Test func statusClasses() {
        #expect(HTTP.Status.noContent.forbidsContent)
        #expect(HTTP.Status.notModified.forbidsContent)
        #expect(HTTP.Status.continue.forbidsContent)
        #expect(!HTTP.Status.ok.forbidsContent)
        #expect(HTTP.Status.badRequest.isError && HTTP.Status.serviceUnavailable.isError && !HTTP.Status.found.isError)
    }
}
