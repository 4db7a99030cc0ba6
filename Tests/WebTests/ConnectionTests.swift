import Clocks
import Testing
import Web

/// Keep-alive and close (RFC 9112 §9), pipelining, HEAD, refusals, and the socket's side.
/// Timers are in Connection+TurnTests, event streams and answers in Connection+AnswersTests.
@Suite struct ConnectionTests {
    static let get = "GET / HTTP/1.1\r\nHost: v\r\n\r\n"

    @Test func http11StaysOpenBetweenRequests() {
        var harness = ConnectionHarness()
        harness.send(Self.get)
        #expect(harness.requests.map(\.path) == ["/"])
        harness.respond(.text("hi"))
        #expect(harness.receivedText == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nhi")
        #expect(!harness.connection.isClosed)
        harness.send("GET /second HTTP/1.1\r\nHost: v\r\n\r\n")
        #expect(harness.requests.map(\.path) == ["/", "/second"])
        #expect(harness.connection.requestCount == 2)
    }

    /// RFC 9112 §9.6: after `close` the server sends its answer, shuts its write side, reads
    /// what is left, and closes.
    @Test func connectionCloseEndsAfterTheAnswer() {
        var harness = ConnectionHarness()
        harness.send("GET / HTTP/1.1\r\nHost: v\r\nConnection: close\r\n\r\n")
        harness.respond(.text("bye"))
        #expect(harness.receivedText.contains("\r\nConnection: close\r\n"))
        #expect(harness.actions.last == .shutdownWrite)
        #expect(harness.connection.readCapacity > 0)
        // Bytes the client still sends are dropped.
        harness.send(Self.get)
        #expect(harness.requests.count == 1)
        harness.jumpToDeadline()
        #expect(harness.closeReason == .finished)
        #expect(harness.connection.nextDeadline == nil)
    }

    @Test func lingeringEndsWhenTheClientCloses() {
        var harness = ConnectionHarness()
        harness.send("GET / HTTP/1.1\r\nHost: v\r\nConnection: close\r\n\r\n")
        harness.respond(.text("bye"))
        harness.peerCloses()
        #expect(harness.closeReason == .peerClosed)
    }

    @Test func http10ClosesUnlessItAsksToKeepAlive() {
        var plain = ConnectionHarness()
        plain.send("GET / HTTP/1.0\r\n\r\n")
        plain.respond(.text("x"))
        #expect(plain.receivedText.contains("Connection: close\r\n"))
        #expect(plain.actions.last == .shutdownWrite)

        var keepAlive = ConnectionHarness()
        keepAlive.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        keepAlive.respond(.text("x"))
        #expect(keepAlive.receivedText.contains("Connection: keep-alive\r\n"))
        keepAlive.send("GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(keepAlive.requests.count == 2)
    }

    /// The application closes by sending `Connection: close` itself.
    @Test func theApplicationCanClose() {
        var harness = ConnectionHarness()
        harness.send(Self.get)
        harness.respond(HTTP.Response.text("x").setting("Connection", "close"))
        #expect(harness.receivedText.contains("Connection: close\r\n"))
        #expect(harness.actions.last == .shutdownWrite)
    }

    @Test func theLastRequestAllowedGetsConnectionClose() {
        var harness = ConnectionHarness(.init(maximumRequests: 3))
        for index in 1...3 {
            harness.send(Self.get)
            harness.respond(.text("\(index)"))
        }
        #expect(harness.requests.count == 3)
        #expect(harness.receivedText.components("Connection: close") == 1)
        #expect(harness.actions.last == .shutdownWrite)
    }

    @Test func theDefaultRequestLimitIs100() {
        var harness = ConnectionHarness()
        for _ in 1...99 {
            harness.send(Self.get)
            harness.respond(.text("x"))
        }
        #expect(!harness.receivedText.contains("close"))
        harness.send(Self.get)
        harness.respond(.text("x"))
        #expect(harness.receivedText.components("Connection: close") == 1)
    }

    /// RFC 9112 §9.3.2: pipelined requests are answered in the order they came, each parsed
    /// once the answer before it is taken.
    @Test func pipelinedRequestsAreAnsweredInOrder() {
        var harness = ConnectionHarness()
        harness.send("GET /1 HTTP/1.1\r\nHost: v\r\n\r\nGET /2 HTTP/1.1\r\nHost: v\r\n\r\nHEAD /3 HTTP/1.1\r\nHost: v\r\n\r\n")
        #expect(harness.requests.map(\.path) == ["/1"])
        harness.respond(.text("one"))
        #expect(harness.requests.map(\.path) == ["/1", "/2"])
        harness.respond(.text("two"))
        harness.respond(.text("three"))
        #expect(harness.requests.map(\.path) == ["/1", "/2", "/3"])
        let text = harness.receivedText
        #expect(text.hasSuffix("\r\n\r\n"))   // the HEAD answer has no content
        #expect(text.components("HTTP/1.1 200 OK") == 3)
        #expect(text.contains("one") && text.contains("two") && !text.contains("three"))
    }

    /// While the client has not taken an answer, its next request waits unparsed.
    @Test func aPipelinedRequestWaitsForTheAnswerBeforeIt() {
        var harness = ConnectionHarness()
        harness.clientReads = false
        harness.send("GET /1 HTTP/1.1\r\nHost: v\r\n\r\nGET /2 HTTP/1.1\r\nHost: v\r\n\r\n")
        harness.respond(.text("one"))
        #expect(harness.requests.count == 1)
        #expect(!harness.connection.hasInputToParse)
        harness.clientReads = true
        harness.turn()
        #expect(harness.requests.count == 2)
    }

    /// RFC 9110 §9.3.2: HEAD gets GET's head, Content-Length included, and no content.
    @Test func headGetsTheHeadOnly() {
        var harness = ConnectionHarness()
        harness.send("HEAD / HTTP/1.1\r\nHost: v\r\n\r\n")
        harness.respond(.json("{\"a\":1}"))
        #expect(harness.receivedText == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n")
        harness.send(Self.get)
        #expect(harness.requests.count == 2)
    }

    @Test func aRejectedRequestIsAnsweredWithItsReasonAndClosed() {
        var harness = ConnectionHarness()
        harness.send("GET / HTTP/1.1\r\n\r\n")
        #expect(harness.requests.isEmpty)
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(harness.receivedText.hasSuffix("\r\n\r\nHTTP/1.1 request without a Host field\n"))
        #expect(harness.receivedText.contains("Connection: close\r\n"))
        #expect(harness.actions.last == .shutdownWrite)
    }

    @Test func continueIsSentBeforeTheContentIsRead() {
        var harness = ConnectionHarness()
        harness.send("POST / HTTP/1.1\r\nHost: v\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        #expect(harness.receivedText == "HTTP/1.1 100 Continue\r\n\r\n")
        harness.send("body")
        #expect(harness.requests.first?.bodyText == "body")
        harness.respond(.text("ok"))
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
    }

    @Test func theDateGivenIsSent() {
        var harness = ConnectionHarness()
        harness.send(Self.get)
        harness.respond(.text("x"), date: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(harness.receivedText.contains("\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"))
    }

    @Test func answersWithoutARequestAreIgnored() {
        var harness = ConnectionHarness()
        harness.respond(.text("nobody asked"))
        #expect(harness.received.isEmpty)
    }

    // MARK: The socket's side

    @Test func readCapacityBoundsTheUnparsedInput() {
        var connection = HTTP.Connection(configuration: .init(maximumBufferedInput: 64), at: .zero)
        #expect(connection.readCapacity == 64)
        connection.receive([UInt8](repeating: 0x47, count: 40), at: .zero)
        #expect(connection.readCapacity == 24)
        connection.receive([UInt8](repeating: 0x47, count: 24), at: .zero)
        #expect(connection.readCapacity == 0)
        #expect(connection.bufferedInputCount == 64)
    }

    @Test func outputIsTakenAsTheSocketTakesIt() {
        var harness = ConnectionHarness()
        harness.clientReads = false
        harness.send(Self.get)
        harness.respond(.text("0123456789"))
        let whole = Array(harness.connection.output)
        harness.connection.sent(5, at: harness.now)
        #expect(Array(harness.connection.output) == Array(whole.dropFirst(5)))
        harness.connection.sent(1000, at: harness.now)  // more than there is: all of it
        #expect(harness.connection.output.isEmpty)
    }

    @Test func aClientThatClosesMidRequestIsClosedWithoutAnAnswer() {
        var harness = ConnectionHarness()
        harness.send("GET / HTTP/1.1\r\nHo")
        harness.peerCloses()
        harness.turn()
        #expect(harness.closeReason == .peerClosed)
        #expect(harness.received.isEmpty)
    }

    /// A client may send its request and shut its write side: it still gets the answer.
    @Test func aHalfClosedClientStillGetsItsAnswer() {
        var harness = ConnectionHarness()
        harness.send(Self.get)
        harness.peerCloses()
        #expect(harness.connection.readCapacity == 0)
        harness.respond(.text("x"))
        #expect(harness.receivedText.hasSuffix("x"))
        #expect(harness.closeReason == .peerClosed)
    }
}

extension String {
    /// How many times `part` occurs.
    func components(_ part: String) -> Int { split(separator: part, omittingEmptySubsequences: false).count - 1 }
}
