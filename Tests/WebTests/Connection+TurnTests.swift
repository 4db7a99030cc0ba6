import Clocks
import Testing
import Web

/// The connection's timers on a virtual clock, and its parsing budget per turn.
@Suite struct ConnectionTurnTests {
    @Test func anIdleConnectionIsClosedSilentlyAfter15Seconds() {
        var harness = ConnectionHarness()
        let opened = harness.now
        #expect(harness.connection.nextDeadline == opened + .seconds(15))
        harness.wait(.seconds(14))
        #expect(harness.closeReason == nil)
        harness.jumpToDeadline()
        #expect(harness.now == opened + .seconds(15))
        #expect(harness.closeReason == .idle)
        #expect(harness.received.isEmpty)
    }

    /// Idle time counts from the moment the last answer was taken.
    @Test func idleTimeCountsFromTheLastAnswer() {
        var harness = ConnectionHarness()
        harness.wait(.seconds(10))
        harness.send(ConnectionTests.get)
        #expect(harness.connection.nextDeadline == nil)   // the application has the request
        harness.wait(.seconds(3))
        let answered = harness.now
        harness.respond(.text("x"))
        #expect(harness.connection.nextDeadline == answered + .seconds(15))
    }

    /// Slowloris: a head that trickles in a line every few seconds gets 408 ten seconds after
    /// its first byte, however busy it keeps the connection.
    @Test func aTricklingHeadGets408After10Seconds() {
        var harness = ConnectionHarness()
        harness.wait(.seconds(2))
        let started = harness.now
        harness.send("GET / HTTP/1.1\r\n")
        #expect(harness.connection.nextDeadline == started + .seconds(10))
        for index in 0..<3 {
            harness.wait(.seconds(3))
            harness.send("X-\(index): slow\r\n")
        }
        #expect(harness.received.isEmpty)
        harness.jumpToDeadline()
        #expect(harness.now == started + .seconds(10))
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(harness.receivedText.contains("Connection: close\r\n"))
        #expect(harness.receivedText.hasSuffix("the request did not arrive within 10 s\n"))
        #expect(harness.actions.last == .shutdownWrite)
    }

    /// The content counts too: a request is whole when its last content byte is in.
    @Test func aTricklingBodyGets408() {
        var harness = ConnectionHarness()
        harness.send("POST / HTTP/1.1\r\nHost: v\r\nContent-Length: 100\r\n\r\nabc")
        harness.jumpToDeadline()
        #expect(harness.receivedText.hasPrefix("HTTP/1.1 408 "))
    }

    @Test func emptyLinesAloneAreClosedWithout408() {
        var harness = ConnectionHarness()
        harness.send("\r\n\r\n")
        harness.jumpToDeadline()
        #expect(harness.closeReason == .idle)
        #expect(harness.received.isEmpty)
    }

    /// A client that does not read its answer is closed once its output has waited 10 s
    /// with nothing taken.
    @Test func aClientThatDoesNotReadIsClosed() {
        var harness = ConnectionHarness()
        harness.clientReads = false
        harness.send(ConnectionTests.get)
        let answered = harness.now
        harness.respond(.text(String(repeating: "x", count: 1000)))
        #expect(harness.connection.nextDeadline == answered + .seconds(10))
        // Taking some of it is progress: the time starts again.
        harness.wait(.seconds(6))
        harness.connection.sent(10, at: harness.now)
        #expect(harness.connection.nextDeadline == harness.now + .seconds(10))
        harness.jumpToDeadline()
        #expect(harness.closeReason == .notReading)
    }

    /// The turn's budget: a client's flood is parsed a slice per turn, and the connection
    /// asks for the next turn at once.
    @Test func parsingIsBoundedPerTurn() {
        var connection = HTTP.Connection(configuration: .init(bytesParsedPerTurn: 10), at: .zero)
        let request = Array("GET /0123456789 HTTP/1.1\r\nHost: v\r\n\r\n".utf8)
        connection.receive(request, at: .zero)
        connection.advance(at: .zero)
        #expect(connection.bufferedInputCount == request.count - 10)
        #expect(connection.hasInputToParse)
        #expect(connection.nextDeadline == .zero)
        var turns = 1
        while connection.hasInputToParse {
            connection.advance(at: .zero)
            turns += 1
        }
        #expect(turns == (request.count + 9) / 10)
        #expect(connection.takeActions().count == 1)
    }
}
