import Clocks
import Testing
import Web

/// The client's exchanges on a virtual clock: the runner's part is played by the test, which
/// answers each action with the events a runner would report.
@Suite struct ClientTests {
    static let url = HTTP.URL(scheme: .https, host: "ns.example", target: "/api/v1/entries.json?count=1")
    static let request = HTTP.ClientRequest(method: .get, url: url, headers: [("Accept", "application/json")])
    static let ok = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]".utf8)

    var client = HTTP.Client()
    var now = MonotonicInstant.zero

    mutating func at(_ seconds: Double) -> MonotonicInstant {
        now = MonotonicInstant.zero + .milliseconds(Int64(seconds * 1000))
        return now
    }

    /// Starts `request` and reports every phase up to `phase` (the phase it is then in).
    mutating func exchange(in phase: HTTP.ClientPhase, _ request: HTTP.ClientRequest = request) -> HTTP.ExchangeID {
        let id = client.start(request, at: now)
        let steps: [HTTP.Client.Event] = [.resolved(id), .connected(id), .secured(id), .sent(id), .received(id, Array("HTTP/1.1 2".utf8))]
        let order: [HTTP.ClientPhase] = [.resolving, .connecting, .securing, .sending, .awaitingResponse, .receiving]
        for event in steps.prefix(order.firstIndex(of: phase)!) {
            if request.url.scheme == .http, case .secured = event { continue }
            client.handle(event, at: now)
        }
        #expect(client.phase(of: id) == phase)
        return id
    }

    @Test mutating func anExchangeOverTLSFromOpenToResponse() throws {
        let id = client.start(Self.request, at: now)
        #expect(client.takeActions() == [.open(id, host: "ns.example", port: 443, tls: true)])
        #expect(client.nextDeadline == now + .seconds(10))
        client.handle(.resolved(id), at: at(1))
        client.handle(.connected(id), at: at(2))
        #expect(client.takeActions().isEmpty, "nothing is sent before the handshake")
        client.handle(.secured(id), at: at(3))
        #expect(client.takeActions() == [.send(id, Self.request.serialized())])
        client.handle(.sent(id), at: at(3.5))
        #expect(client.phase(of: id) == .awaitingResponse)
        #expect(client.nextDeadline == now + .seconds(30))
        for byte in Self.ok.dropLast() {
            client.handle(.received(id, [byte]), at: at(4))
            #expect(client.takeFinished().isEmpty)
        }
        client.handle(.received(id, [Self.ok.last!]), at: at(4))
        let finished = client.takeFinished()
        #expect(finished.count == 1)
        #expect(finished.first?.0 == id)
        #expect(try finished.first?.1.get() == HTTP.ClientResponse(status: 200, headers: ["Content-Length": "2"], body: Array("[]".utf8)))
        #expect(client.takeActions() == [.close(id)])
        #expect(client.nextDeadline == nil)
        #expect(client.activeExchanges == 0)
    }

    @Test mutating func plainHTTPSendsOnceConnected() {
        let request = HTTP.ClientRequest(method: .post, url: HTTP.URL(scheme: .http, host: "127.0.0.1", port: 1337, target: "/x"), body: [1, 2])
        let id = client.start(request, at: now)
        #expect(client.takeActions() == [.open(id, host: "127.0.0.1", port: 1337, tls: false)])
        client.handle(.resolved(id), at: now)
        client.handle(.connected(id), at: now)
        #expect(client.takeActions() == [.send(id, request.serialized())])
        #expect(client.phase(of: id) == .sending)
    }

    @Test mutating func theUserAgentIsConfigured() throws {
        var configuration = HTTP.Client.Configuration()
        configuration.userAgent = "Vigil/9.9"
        client = HTTP.Client(configuration: configuration)
        let id = exchange(in: .sending)
        let sent = client.takeActions().compactMap { if case let .send(_, bytes) = $0 { bytes } else { nil } }
        #expect(String(decoding: try #require(sent.first), as: UTF8.self).contains("\r\nUser-Agent: Vigil/9.9\r\n"))
        #expect(client.phase(of: id) == .sending)
    }

    /// Each phase ends at its own time-out, counted from when the phase began, not before.
    @Test(arguments: HTTP.ClientPhase.allCases)
    func eachPhaseTimesOut(phase: HTTP.ClientPhase) {
        var test = ClientTests()
        _ = test.at(100)
        let id = test.exchange(in: phase)
        _ = test.client.takeActions()
        let deadline = MonotonicInstant.zero + .seconds(100) + phase.timeOut
        #expect(test.client.nextDeadline == deadline)
        test.client.advance(to: deadline - .nanoseconds(1))
        #expect(test.client.takeFinished().isEmpty)
        test.client.advance(to: deadline)
        let finished = test.client.takeFinished()
        #expect(finished.map(\.0) == [id])
        #expect(finished.first.map { "\($0.1)" } == "\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(.timedOut(phase)))")
        #expect(test.client.takeActions() == [.close(id)])
        test.client.handle(.received(id, Self.ok), at: deadline)
        #expect(test.client.takeFinished().isEmpty, "a late answer is not a second result")
    }

    /// A phase's clock starts when it begins: a slow resolver does not shorten the connect.
    @Test mutating func eachPhaseHasItsOwnDeadline() {
        let id = client.start(Self.request, at: at(0))
        client.handle(.resolved(id), at: at(9))
        #expect(client.nextDeadline == at(9) + .seconds(10))
        client.handle(.connected(id), at: at(18))
        client.handle(.secured(id), at: at(27))
        client.handle(.sent(id), at: at(36))
        client.advance(to: at(60))
        #expect(client.takeFinished().isEmpty)
        #expect(client.phase(of: id) == .awaitingResponse)
    }

    /// Receiving is bounded as a whole: a server that trickles a byte at a time cannot hold an
    /// exchange past 30 s from its first byte.
    @Test mutating func receivingIsBoundedFromTheFirstByte() {
        let id = exchange(in: .awaitingResponse)
        client.handle(.received(id, Array("HTTP/1.1 200 OK\r\n".utf8)), at: at(1))
        for second in 2...30 { client.handle(.received(id, Array("X: y\r\n".utf8)), at: at(Double(second))) }
        client.advance(to: at(31))
        #expect(client.takeFinished().map { "\($0.1)" } == ["\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(.timedOut(.receiving)))"])
    }

    @Test mutating func timeOutsCanBeShortenedForATest() {
        var configuration = HTTP.Client.Configuration()
        configuration.timeOuts[.awaitingResponse] = .seconds(2)
        client = HTTP.Client(configuration: configuration)
        _ = exchange(in: .awaitingResponse)
        #expect(client.nextDeadline == now + .seconds(2))
    }

    @Test(arguments: [HTTP.ClientFailure.resolveFailed("Name or service not known"), .connectFailed("Connection refused"),
                      .tlsFailed("certificate verify failed: hostname mismatch")])
    func theRunnersFailuresEndTheExchange(failure: HTTP.ClientFailure) {
        var test = ClientTests()
        let id = test.exchange(in: .resolving)
        _ = test.client.takeActions()
        test.client.handle(.failed(id, failure), at: test.now)
        #expect(test.client.takeFinished().map { "\($0.1)" } == ["\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(failure))"])
        #expect(test.client.takeActions() == [.close(id)])
    }

    @Test mutating func aCloseBeforeTheResponseFails() {
        let id = exchange(in: .awaitingResponse)
        client.handle(.peerClosed(id), at: now)
        #expect(client.takeFinished().map { "\($0.1)" } == ["\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(.closedBeforeResponse))"])
    }

    @Test mutating func aBodyToTheCloseEndsWithTheClose() throws {
        let id = exchange(in: .awaitingResponse)
        client.handle(.received(id, Array("HTTP/1.0 503 Service Unavailable\r\n\r\nbusy".utf8)), at: now)
        #expect(client.takeFinished().isEmpty)
        client.handle(.peerClosed(id), at: now)
        let response = try #require(try client.takeFinished().first?.1.get())
        #expect(response.status == 503)
        #expect(response.body == Array("busy".utf8))
    }

    @Test mutating func aMalformedResponseEndsTheExchangeAndClosesIt() {
        let id = exchange(in: .awaitingResponse)
        _ = client.takeActions()
        client.handle(.received(id, Array("SSH-2.0-OpenSSH_9.2\r\n".utf8)), at: now)
        guard case .failure(.malformedResponse)? = client.takeFinished().first?.1 else {
            Issue.record("not refused as malformed")
            return
        }
        #expect(client.takeActions() == [.close(id)])
    }

    @Test mutating func theBodyLimitIsConfigured() {
        var configuration = HTTP.Client.Configuration()
        configuration.maximumBody = 10
        client = HTTP.Client(configuration: configuration)
        let id = exchange(in: .awaitingResponse)
        client.handle(.received(id, Array("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n".utf8)), at: now)
        #expect(client.takeFinished().map { "\($0.1)" } == ["\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(.responseTooLarge))"])
    }

    /// A server may answer before the request is known to be out (a refusal after the first
    /// bytes): the answer counts.
    @Test mutating func anAnswerWhileSendingCounts() throws {
        let id = exchange(in: .sending)
        client.handle(.received(id, Self.ok), at: now)
        #expect(try client.takeFinished().first?.1.get().status == 200)
    }

    @Test mutating func aCancelledExchangeIsClosedAndGivesNoResult() {
        let id = exchange(in: .connecting)
        _ = client.takeActions()
        client.cancel(id)
        #expect(client.takeActions() == [.close(id)])
        #expect(client.nextDeadline == nil)
        client.handle(.connected(id), at: now)
        client.handle(.failed(id, .connectFailed("late")), at: now)
        client.advance(to: at(1000))
        #expect(client.takeFinished().isEmpty)
        #expect(client.takeActions().isEmpty)
        client.cancel(id)
        #expect(client.takeActions().isEmpty, "cancelling twice closes once")
    }

    /// Reports out of order or repeated (a runner's slip) move no exchange backwards.
    @Test mutating func lateOrRepeatedReportsAreIgnored() {
        let id = exchange(in: .sending)
        _ = client.takeActions()
        client.handle(.resolved(id), at: now)
        client.handle(.connected(id), at: now)
        client.handle(.secured(id), at: now)
        #expect(client.phase(of: id) == .sending)
        #expect(client.takeActions().isEmpty, "the request is sent once")
        client.handle(.received(id, []), at: now)
        #expect(client.phase(of: id) == .sending)
        client.handle(.resolved(HTTP.ExchangeID(999)), at: now)
        #expect(client.activeExchanges == 1)
    }

    /// Many exchanges at once, answered out of order, each with its own result and time-out.
    @Test mutating func manyExchangesAtOnce() throws {
        let ids = (0..<5).map { _ in client.start(Self.request, at: now) }
        #expect(Set(ids).count == 5)
        #expect(ids == ids.sorted())
        for id in ids {
            client.handle(.resolved(id), at: now)
            client.handle(.connected(id), at: now)
            client.handle(.secured(id), at: now)
            client.handle(.sent(id), at: now)
        }
        client.handle(.received(ids[3], Self.ok), at: at(1))
        client.handle(.failed(ids[1], .connectFailed("reset")), at: at(2))
        client.handle(.received(ids[0], Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)), at: at(3))
        client.advance(to: at(30))
        let finished = client.takeFinished()
        #expect(finished.map(\.0) == [ids[3], ids[1], ids[0], ids[2], ids[4]])
        #expect(try finished[0].1.get().status == 200)
        #expect(try finished[2].1.get().status == 404)
        #expect("\(finished[3].1)" == "\(Result<HTTP.ClientResponse, HTTP.ClientFailure>.failure(.timedOut(.awaitingResponse)))")
        #expect(client.takeActions().filter { if case .close = $0 { true } else { false } }.count == 5)
    }
}
