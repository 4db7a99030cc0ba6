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

    /// At the end of the turn: the turn's events taken in, and one `state` event rendered for
    /// every stream when the page's state changed (docs/web.md "Live updates").
    mutating func pushWebState(at now: ClockReadings) {
        guard website != nil else { return }
        website!.absorb()
        if website!.streamsWantState {
            if website!.stateChanged || website!.lastState == nil {
                website!.pushState(webState(at: now), at: now.monotonic)
            } else {
                website!.payOwedState(at: now.monotonic)
            }
        }
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
                    website!.owedState.remove(id)
                    actions.append(.webClose(id))
                }
            }
        }
    }

    // MARK: Answers

    /// One request, routed (docs/web.md "Routes", "Access"). Log lines name the path only: a
    /// query or a field may hold the token.
    mutating func answerWeb(_ request: HTTP.Request, on id: WebConnection, at now: ClockReadings) {
        website!.absorb()
        let isRead = request.method == .get || request.method == .head
        let path = request.path
        if path == "/health" {
            return respondWeb(id, isRead ? Website.health(faults: webFaults.map(\.kind.name)) : .methodNotAllowed(allowing: [.get, .head]), at: now)
        }
        if Nightscout.API.answers(path: path) {
            let response = website!.answerNightscout(request) { nightscoutSnapshot(at: now) }
            if response.status == .unauthorized { log(.info, "web: \(request.method) \(path) refused: no valid Nightscout credential") }
            return respondWeb(id, response, at: now)
        }
        let credential = website!.credential(of: request)
        if request.method == .post {
            guard website!.isSameOrigin(request, credential: credential) else {
                log(.warning, "web: POST \(path) refused: not from the page's own origin")
                return respondWeb(id, Website.error(.forbidden, "not from this page"), at: now)
            }
            switch path {
            case "/login": return signIn(request, on: id, at: now)
            case "/logout":
                log(.notice, "web: signed out")
                return respondWeb(id, Website.seeOther(cookie: website!.signOutCookie()), at: now)
            default: break
            }
        }
        if isRead, path == "/" {
            if let token = request.query["token"] {
                guard website!.isToken(token) else {
                    log(.warning, "web: GET / refused: a wrong token in the link")
                    return respondWeb(id, Website.signIn(error: Website.wrongToken), at: now)
                }
                log(.notice, "web: signed in by a link")
                return respondWeb(id, Website.seeOther(cookie: website!.signInCookie()), at: now)
            }
            return respondWeb(id, credential == nil ? Website.signIn() : .html(Website.pageHTML), at: now)
        }
        if isRead, let asset = Website.asset(at: path) {
            // The page's files hold no data: the sign-in page needs its style and icon too.
            return respondWeb(id, asset, at: now)
        }
        guard credential != nil else {
            log(.info, "web: \(request.method) \(path) refused: no valid token")
            return respondWeb(id, Website.error(.unauthorized, "sign in first").setting("WWW-Authenticate", "Bearer"), at: now)
        }
        switch (request.method, path) {
        case (.get, "/state.json"), (.head, "/state.json"):
            respondWeb(id, .json(webState(at: now)), at: now)
        case (.get, "/events"):
            website!.openStream(on: id, state: webState(at: now), at: now.monotonic)
        case (.get, "/report"), (.head, "/report"):
            askForReport(on: id, at: now)
        case (.post, "/alarms/snooze"), (.post, "/alarms/acknowledge"), (.post, "/alarms/snooze-all"):
            actOnAlarms(request, on: id, at: now)
        case (_, "/state.json"), (_, "/report"):
            respondWeb(id, .methodNotAllowed(allowing: [.get, .head]), at: now)
        case (_, "/events"):
            // A stream has no head without its body: HEAD would open one.
            respondWeb(id, .methodNotAllowed(allowing: [.get]), at: now)
        case (_, "/alarms/snooze"), (_, "/alarms/acknowledge"), (_, "/alarms/snooze-all"), (_, "/login"), (_, "/logout"):
            respondWeb(id, .methodNotAllowed(allowing: [.post]), at: now)
        default:
            respondWeb(id, Website.error(.notFound, "no such page"), at: now)
        }
    }

    mutating func respondWeb(_ id: WebConnection, _ response: HTTP.Response, at now: ClockReadings) {
        website!.server.respond(to: id, with: Website.secured(response), at: now.monotonic)
    }

    /// `POST /login`: the form's token sets the cookie; a wrong one gets the sign-in page again.
    private mutating func signIn(_ request: HTTP.Request, on id: WebConnection, at now: ClockReadings) {
        guard let form = Website.form(of: request) else {
            return respondWeb(id, Website.error(.badRequest, "expected a form (application/x-www-form-urlencoded)"), at: now)
        }
        guard let token = form["token"], website!.isToken(token) else {
            log(.warning, "web: POST /login refused: a wrong token")
            return respondWeb(id, Website.signIn(error: Website.wrongToken), at: now)
        }
        log(.notice, "web: signed in")
        respondWeb(id, Website.seeOther(cookie: website!.signInCookie()), at: now)
    }

    /// The appliance's faults standing now.
    var webFaults: [ActiveAlarm] {
        (face?.alarms.engine.activeAlarms ?? []).filter { if case .fault = $0.kind { true } else { false } }
    }
}
