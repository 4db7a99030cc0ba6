import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct NameResolutionTests {
    /// Waits for the resolution's descriptor the way the event loop does (10 s at most).
    private func waitForAnswer(_ resolution: NameResolution) -> Bool {
        var entry = pollfd(fd: resolution.descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 10_000) == 1
    }

    @Test func localhostResolvesToALoopbackAddress() throws {
        let resolution = try NameResolution(host: "localhost", port: 8443)
        #expect(resolution.target == "localhost:8443")
        #expect(waitForAnswer(resolution))
        let addresses = try resolution.finish().get()
        #expect(addresses.contains { $0.description == "127.0.0.1:8443" || $0.description == "[::1]:8443" }, "\(addresses)")
    }

    /// `.invalid` never resolves (RFC 6761 section 6.4): the resolver's own reason comes back.
    @Test func anInvalidNameFailsWithTheResolversReason() throws {
        let resolution = try NameResolution(host: "no-such-host.invalid", port: 443)
        #expect(waitForAnswer(resolution))
        guard case .failure(let error) = resolution.finish() else {
            Issue.record("a .invalid name resolved")
            return
        }
        #expect(error.operation == "getaddrinfo(no-such-host.invalid:443)")
        #expect(!error.reason.isEmpty)
    }

    /// The answer is taken once; a second call says so rather than blocking.
    @Test func theAnswerIsTakenOnce() throws {
        let resolution = try NameResolution(host: "127.0.0.1", port: 80)
        #expect(waitForAnswer(resolution))
        #expect(try resolution.finish().get().map(\.description) == ["127.0.0.1:80"])
        guard case .failure(let error) = resolution.finish() else {
            Issue.record("the answer was handed over twice")
            return
        }
        #expect(error.reason.contains("already taken"))
    }

    /// Abandoning never waits for the resolver: dropping many unanswered resolutions costs
    /// the loop nothing, and each thread ends on its own.
    @Test func abandoningDoesNotWait() throws {
        let start = SystemClock.monotonicNow()
        for _ in 0..<20 {
            let resolution = try NameResolution(host: "localhost", port: 1)
            resolution.abandon()
        }
        #expect(SystemClock.monotonicNow() - start < .seconds(5))
    }

    @Test func numericAddressesNeedNoResolver() {
        #expect(SocketAddress.numeric("127.0.0.1", port: 443)?.description == "127.0.0.1:443")
        #expect(SocketAddress.numeric("::1", port: 443)?.description == "[::1]:443")
        #expect(SocketAddress.numeric("localhost", port: 443) == nil)
        #expect(SocketAddress.numeric("[::1]", port: 443) == nil)
        #expect(SocketAddress.numeric("", port: 443) == nil)
    }
}
