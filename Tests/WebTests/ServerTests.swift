import Clocks
import Testing
import Web

/// Many connections by ID: the cap and its 503, fairness between clients, actions and deadlines.
@Suite struct ServerTests {
    static let get = Array("GET / HTTP/1.1\r\nHost: v\r\n\r\n".utf8)
    let now = MonotonicInstant.zero + .seconds(100)

    @Test func requestsComeOutWithTheirConnection() {
        var server = HTTP.Server()
        let a = server.open(at: now)
        let b = server.open(at: now)
        #expect(a != b)
        server.receive(Self.get, from: b, at: now)
        server.advance(at: now)
        let actions = server.takeActions()
        guard case let .handle(id, request)? = actions.first, actions.count == 1 else { Issue.record("\(actions)"); return }
        #expect(id == b)
        #expect(request.path == "/")
        server.respond(to: b, with: .text("x"), at: now)
        #expect(String(decoding: server.output(of: b), as: UTF8.self).hasSuffix("\r\n\r\nx"))
        #expect(server.output(of: a).isEmpty)
    }

    /// 32 are served; the 33rd gets 503 with `Connection: close` and is closed after it.
    @Test func theConnectionPastTheCapGets503() {
        var server = HTTP.Server()
        let served = (0..<32).map { _ in server.open(at: now) }
        #expect(server.servedCount == 32)
        #expect(served.allSatisfy { server.output(of: $0).isEmpty })
        let extra = server.open(at: now)
        let answer = String(decoding: server.output(of: extra), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(server.readCapacity(of: extra) == 0)
        #expect(server.servedCount == 32 && server.connectionCount == 33)
        server.sent(answer.utf8.count, to: extra, at: now)
        #expect(server.takeActions() == [.shutdownWrite(extra)])
        server.peerClosed(extra, at: now)
        #expect(server.takeActions() == [.close(extra, .peerClosed)])
        // One served connection closing makes room.
        server.peerClosed(served[0], at: now)
        #expect(server.takeActions() == [.close(served[0], .peerClosed)])
        let next = server.open(at: now)
        #expect(server.output(of: next).isEmpty)
        #expect(server.servedCount == 32)
    }

    /// Past the refusals in flight a new socket is closed at once, costing nothing.
    @Test func pastTheRefusalsInFlightASocketIsClosedAtOnce() {
        var server = HTTP.Server(configuration: .init(maximumConnections: 1, maximumRefusing: 2))
        _ = server.open(at: now)
        let refused = (0..<2).map { _ in server.open(at: now) }
        #expect(refused.allSatisfy { !server.output(of: $0).isEmpty })
        #expect(server.takeActions().isEmpty)
        let dropped = server.open(at: now)
        #expect(server.takeActions() == [.close(dropped, .overCapacity)])
        #expect(server.connectionCount == 3)
    }

    /// A client flooding its connection is parsed a slice per turn; the others' requests are
    /// handed out in the same turn.
    @Test func aFloodingClientCannotStarveTheOthers() {
        var server = HTTP.Server(configuration: .init(connection: .init(bytesParsedPerTurn: 100)))
        let flooder = server.open(at: now)
        let quiet = server.open(at: now)
        let flood = Array("GET /".utf8) + [UInt8](repeating: 0x61, count: 8000) + Array(" HTTP/1.1\r\nHost: v\r\n\r\n".utf8)
        server.receive(flood.prefix(server.readCapacity(of: flooder)), from: flooder, at: now)
        server.receive(Self.get, from: quiet, at: now)
        server.advance(at: now)
        let actions = server.takeActions()
        #expect(actions.count == 1)
        if case let .handle(id, _)? = actions.first { #expect(id == quiet) } else { Issue.record("\(actions)") }
        #expect(server.nextDeadline == now)   // the flooder's input waits for the next turn
        var turns = 1
        while server.takeActions().isEmpty && turns < 1000 {
            server.advance(at: now)
            turns += 1
        }
        #expect(turns == (flood.count + 99) / 100)
    }

    @Test func theEarliestDeadlineOfAllConnections() {
        var server = HTTP.Server()
        #expect(server.nextDeadline == nil)
        let a = server.open(at: now)
        _ = server.open(at: now + .seconds(5))
        #expect(server.nextDeadline == now + .seconds(15))
        server.receive(Array("GET".utf8), from: a, at: now + .seconds(1))
        server.advance(at: now + .seconds(1))
        #expect(server.nextDeadline == now + .seconds(11))
        server.advance(at: now + .seconds(11))
        #expect(String(decoding: server.output(of: a), as: UTF8.self).hasPrefix("HTTP/1.1 408 "))
    }

    @Test func aClosedConnectionIsForgotten() {
        var server = HTTP.Server()
        let a = server.open(at: now)
        server.advance(at: now + .seconds(15))
        #expect(server.takeActions() == [.close(a, .idle)])
        #expect(server.connectionCount == 0)
        server.respond(to: a, with: .text("late"), at: now)
        server.receive(Self.get, from: a, at: now)
        #expect(server.output(of: a).isEmpty && server.readCapacity(of: a) == 0)
        #expect(server.open(at: now) != a)   // IDs are never reused
    }

    @Test func eventsGoToEveryOpenStream() {
        var server = HTTP.Server()
        server.date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let ids = (0..<3).map { _ in server.open(at: now) }
        for id in ids { server.receive(Self.get, from: id, at: now) }
        server.advance(at: now)
        _ = server.takeActions()
        server.startEventStream(on: ids[0], at: now)
        server.startEventStream(on: ids[1], at: now)
        server.respond(to: ids[2], with: .text("plain"), at: now)
        #expect(server.eventStreams == [ids[0], ids[1]])
        for id in ids { server.sent(server.output(of: id).count, to: id, at: now) }
        server.sendToEventStreams(HTTP.ServerSentEvent(data: "104"), at: now)
        #expect(String(decoding: server.output(of: ids[0]), as: UTF8.self) == "data: 104\n\n")
        #expect(String(decoding: server.output(of: ids[1]), as: UTF8.self) == "data: 104\n\n")
        #expect(server.output(of: ids[2]).isEmpty)
        server.endEventStream(on: ids[1], at: now)
        server.sent(11, to: ids[1], at: now)
        #expect(server.takeActions() == [.shutdownWrite(ids[1])])
    }

    @Test func theServersDateIsOnEveryAnswer() {
        var server = HTTP.Server()
        server.date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let a = server.open(at: now)
        server.receive(Self.get, from: a, at: now)
        server.advance(at: now)
        server.respond(to: a, with: .text("x"), at: now)
        #expect(String(decoding: server.output(of: a), as: UTF8.self).contains("\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"))
    }
}
