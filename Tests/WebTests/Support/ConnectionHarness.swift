import Clocks
import Web

/// One connection on a virtual clock, with a client that reads whatever is sent at once
/// (unless told not to). Every action is recorded in order.
struct ConnectionHarness {
    var connection: HTTP.Connection
    var now = MonotonicInstant.zero + .seconds(1000)
    var actions: [HTTP.Connection.Action] = []
    /// What the client has read so far.
    var received: [UInt8] = []
    var clientReads = true

    init(_ configuration: HTTP.Connection.Configuration = .init()) {
        connection = HTTP.Connection(configuration: configuration, at: now)
    }

    var receivedText: String { String(decoding: received, as: UTF8.self) }

    /// Requests handed out so far.
    var requests: [HTTP.Request] {
        actions.compactMap { if case let .handle(request) = $0 { request } else { nil } }
    }

    var closeReason: HTTP.Connection.CloseReason? {
        for action in actions { if case let .close(reason) = action { return reason } }
        return nil
    }

    /// The client sends bytes, as much as the connection lets the owner read per turn, and the
    /// turn runs (and runs again while parsing is left over).
    mutating func send(_ text: String) { send(Array(text.utf8)) }

    mutating func send(_ bytes: [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = min(rest.count, connection.readCapacity)
            guard n > 0 else { break }
            connection.receive(rest.prefix(n), at: now)
            rest = rest.dropFirst(n)
            turn()
        }
        turn()
    }

    /// One loop turn: write what the client reads, advance, collect actions; again while the
    /// connection asks for an immediate turn.
    mutating func turn() {
        for _ in 0..<10_000 {
            flush()
            connection.advance(at: now)
            actions += connection.takeActions()
            flush()
            guard connection.hasInputToParse else { return }
        }
    }

    mutating func flush() {
        guard clientReads else { return }
        let output = connection.output
        if !output.isEmpty {
            received += output
            connection.sent(output.count, at: now)
            actions += connection.takeActions()
        }
    }

    mutating func respond(_ response: HTTP.Response, date: String? = nil) {
        connection.respond(response, date: date, at: now)
        actions += connection.takeActions()
        turn()
    }

    /// The client closes its side.
    mutating func peerCloses() {
        connection.peerClosed(at: now)
        actions += connection.takeActions()
    }

    /// Moves the clock to the connection's next deadline and runs the turn there.
    mutating func jumpToDeadline() {
        guard let deadline = connection.nextDeadline else { return }
        now = max(now, deadline)
        turn()
    }

    mutating func wait(_ duration: Duration) {
        now += duration
        turn()
    }
}
