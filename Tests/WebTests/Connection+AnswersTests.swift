import Clocks
import Testing
import Web

/// Event streams (WHATWG HTML §9.2) on a connection, and refusals by the application.
@Suite struct ConnectionAnswersTests {
    static func streaming(_ configuration: HTTP.Connection.Configuration = .init()) -> ConnectionHarness {
        var harness = ConnectionHarness(configuration)
        harness.send("GET /events HTTP/1.1\r\nHost: v\r\nAccept: text/event-stream\r\n\r\n")
        harness.connection.startEventStream(at: harness.now)
        harness.turn()
        return harness
    }

    @Test func theStreamHeadHasNoLengthAndClosesTheConnection() {
        let harness = Self.streaming()
        #expect(harness.receivedText == "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n")
        #expect(harness.connection.isStreamingEvents)
    }

    @Test func eventsAreAppendedAsTheyCome() {
        var harness = Self.streaming()
        let head = harness.received.count
        harness.connection.send(HTTP.ServerSentEvent(event: "reading", data: "{\"sgv\":104}", id: "7"), at: harness.now)
        harness.turn()
        #expect(String(decoding: harness.received[head...], as: UTF8.self) == "event: reading\nid: 7\ndata: {\"sgv\":104}\n\n")
    }

    /// WHATWG HTML §9.2.7: a comment keeps a quiet stream alive; one after 15 s of quiet.
    @Test func aQuietStreamGetsAKeepAliveComment() {
        var harness = Self.streaming()
        let head = harness.received.count
        let opened = harness.now
        #expect(harness.connection.nextDeadline == opened + .seconds(15))
        harness.jumpToDeadline()
        #expect(String(decoding: harness.received[head...], as: UTF8.self) == ": keep-alive\n\n")
        #expect(harness.connection.nextDeadline == opened + .seconds(30))
        // An event restarts the quiet time.
        harness.wait(.seconds(5))
        harness.connection.send(HTTP.ServerSentEvent(data: "x"), at: harness.now)
        harness.turn()
        #expect(harness.connection.nextDeadline == harness.now + .seconds(15))
    }

    /// A browser that stops reading is closed when its stream would pass the output bound;
    /// the output held never passes it.
    @Test func aStreamThatIsNotReadIsClosedAtTheOutputBound() {
        var harness = Self.streaming(.init(maximumQueuedOutput: 4096))
        harness.clientReads = false
        let event = HTTP.ServerSentEvent(data: String(repeating: "g", count: 1000))
        var sent = 0
        while harness.closeReason == nil && sent < 100 {
            harness.connection.send(event, at: harness.now)
            harness.actions += harness.connection.takeActions()
            #expect(harness.connection.output.count <= 4096)
            sent += 1
        }
        #expect(harness.closeReason == .notReading)
        #expect(sent == 5)   // four events of 1,008 bytes fit, the fifth does not
    }

    @Test func endingTheStreamClosesAfterItsOutput() {
        var harness = Self.streaming()
        harness.connection.send(HTTP.ServerSentEvent(data: "last"), at: harness.now)
        harness.connection.endEventStream(at: harness.now)
        harness.turn()
        #expect(harness.receivedText.hasSuffix("data: last\n\n"))
        #expect(harness.actions.last == .shutdownWrite)
        harness.jumpToDeadline()
        #expect(harness.closeReason == .finished)
    }

    @Test func whatTheBrowserSendsOnAStreamIsDroppedAndItsCloseEndsIt() {
        var harness = Self.streaming()
        harness.send("GET / HTTP/1.1\r\nHost: v\r\n\r\n")
        #expect(harness.requests.count == 1)
        #expect(harness.connection.bufferedInputCount == 0)
        harness.peerCloses()
        #expect(harness.closeReason == .peerClosed)
    }

    @Test func aHeadRequestForAStreamGetsItsHeadOnly() {
        var harness = ConnectionHarness()
        harness.send("HEAD /events HTTP/1.1\r\nHost: v\r\n\r\n")
        harness.connection.startEventStream(at: harness.now)
        harness.turn()
        #expect(harness.receivedText.hasSuffix("Connection: close\r\n\r\n"))
        #expect(!harness.connection.isStreamingEvents)
        #expect(harness.actions.last == .shutdownWrite)
    }

    @Test func eventsWithoutAStreamAreIgnored() {
        var harness = ConnectionHarness()
        harness.connection.send(HTTP.ServerSentEvent(data: "x"), at: harness.now)
        harness.turn()
        #expect(harness.received.isEmpty)
    }

    @Test func theApplicationCanRefuseTheRequestInHand() {
        var harness = ConnectionHarness()
        harness.send("POST /alarms/snooze HTTP/1.1\r\nHost: v\r\n\r\n")
        harness.connection.refuse(HTTP.Rejection(.forbidden, "cross-origin action refused"), at: harness.now)
        harness.turn()
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(harness.receivedText.hasSuffix("cross-origin action refused\n"))
        #expect(harness.actions.last == .shutdownWrite)
    }

    /// RFC 9110 §15.2: a 1xx is never final; one given as the answer becomes a 500.
    @Test func anInterimStatusAsTheAnswerBecomes500() {
        var harness = ConnectionHarness()
        harness.send(ConnectionTests.get)
        harness.respond(HTTP.Response(status: .continue))
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
        #expect(harness.receivedText.hasSuffix("the application answered with an interim status\n"))
        #expect(harness.actions.last == .shutdownWrite)
    }
}
