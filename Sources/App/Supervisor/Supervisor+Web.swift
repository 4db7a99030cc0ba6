import Alarms
import Clocks
import Web

/// The page and the Nightscout API on the home network (docs/web.md): the platform side hands
/// the supervisor what each accepted socket did, and performs the `webShutdownWrite` and
/// `webClose` actions; everything else, every answer included, is decided here. Every method
/// that can make the server act turns its actions into the supervisor's before it returns.
extension Supervisor {
    public typealias WebConnection = HTTP.Server.ConnectionID

    /// Whether `[web]` is on: the platform side listens only then.
    public var servesWeb: Bool { website != nil }

    /// A socket the listener accepted. An ID is always returned; one over capacity is
    /// answered 503 by the server, or closed by a `webClose` action (so is every socket
    /// accepted while the page is off).
    public mutating func webConnectionOpened(at now: ClockReadings) -> WebConnection {
        let id: WebConnection
        if website != nil {
            id = website!.server.open(at: now.monotonic)
        } else {
            id = webOff.open(at: now.monotonic)
        }
        serveWeb(at: now)
        return id
    }

    /// What may be read from the socket now (0: do not poll it for input).
    public func webReadCapacity(of id: WebConnection) -> Int {
        website?.server.readCapacity(of: id) ?? 0
    }

    /// The socket's unsent output (empty: do not poll it for output).
    public func webOutput(of id: WebConnection) -> ArraySlice<UInt8> {
        website?.server.output(of: id) ?? []
    }

    public mutating func webReceived(_ bytes: ArraySlice<UInt8>, from id: WebConnection, at now: ClockReadings) {
        website?.server.receive(bytes, from: id, at: now.monotonic)
        serveWeb(at: now)
    }

    /// `count` bytes of `webOutput(of:)` were written to the socket.
    public mutating func webSent(_ count: Int, to id: WebConnection, at now: ClockReadings) {
        website?.server.sent(count, to: id, at: now.monotonic)
        serveWeb(at: now)
    }

    /// The peer closed (a read of 0 bytes) or the socket failed.
    public mutating func webPeerClosed(_ id: WebConnection, at now: ClockReadings) {
        website?.server.peerClosed(id, at: now.monotonic)
        serveWeb(at: now)
    }

    // MARK: The turn

    /// The server's timers and parsing, once per turn (`handleDeadline`, `endOfTurn`).
    mutating func advanceWeb(at now: ClockReadings) {
        guard website != nil else { return }
        website!.setDate(wallNow: now.wall, believableFrom: ApplianceAlarms.earliestBelievableTime)
        website!.server.advance(at: now.monotonic)
        serveWeb(at: now)
    }

    /// The server's actions become the supervisor's, and its requests are answered, until it
    /// has none: an answer can close a connection, and a close can make room.
    mutating func serveWeb(at now: ClockReadings) {
        for action in webOff.takeActions() {
            if case let .close(id, _) = action { actions.append(.webClose(id)) }
        }
        guard website != nil else { return }
        while true {
            let serverActions = website!.server.takeActions()
            if serverActions.isEmpty { return }
            for action in serverActions {
                switch action {
                case let .handle(id, request):
                    answerWeb(request, on: id, at: now)
                case let .shutdownWrite(id):
                    actions.append(.webShutdownWrite(id))
                case let .close(id, _):
                    actions.append(.webClose(id))
                }
            }
        }
    }

    // MARK: Answers

    /// One request, routed (docs/web.md "Routes").
    mutating func answerWeb(_ request: HTTP.Request, on id: WebConnection, at now: ClockReadings) {
        let response: HTTP.Response
        switch (request.method, request.path) {
        case (.get, "/health"), (.head, "/health"):
            response = Website.health(faults: webFaults.map(\.kind.name))
        default:
            response = Website.error(.notFound, "no such page")
        }
        website!.server.respond(to: id, with: Website.secured(response), at: now.monotonic)
    }

    /// The appliance's faults standing now.
    var webFaults: [ActiveAlarm] {
        (face?.alarms.engine.activeAlarms ?? []).filter { if case .fault = $0.kind { true } else { false } }
    }
}
