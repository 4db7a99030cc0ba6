import Clocks
import Web

/// The page's live updates (docs/web.md "Live updates"): a `state` event when a stream opens and
/// after every change, pushed at the end of a turn, never on the alarm path, and rendered once
/// for every stream. A stream that has not taken its previous event gets only the newest state,
/// once it has.
extension Website {
    /// How long a browser waits before reconnecting a dropped stream.
    static let retryMilliseconds = 5000

    static func stateEvent(_ state: String) -> HTTP.ServerSentEvent {
        HTTP.ServerSentEvent(event: "state", data: state, retryMilliseconds: retryMilliseconds)
    }

    /// A stream opened: its first `state` at once.
    mutating func openStream(on id: HTTP.Server.ConnectionID, state: String, at now: MonotonicInstant) {
        var headers = HTTP.Headers()
        for (name, value) in Self.securityHeaders where name != "Cache-Control" { headers.set(name, value) }
        server.startEventStream(on: id, headers: headers, at: now)
        server.send(Self.stateEvent(state), to: id, at: now)
        freshStreams.insert(id)
    }

    /// Whether a `state` event is due to some stream: the state changed and a stream is open,
    /// or a stream owed one has taken what it had.
    var streamsWantState: Bool {
        if stateChanged { return server.eventStreams.contains { !freshStreams.contains($0) } }
        return owedState.contains { server.output(of: $0).isEmpty }
    }

    /// Sends `state` (rendered by the caller only when `streamsWantState`) to every stream that
    /// has taken its previous event; the others are owed it.
    mutating func pushState(_ state: String, at now: MonotonicInstant) {
        lastState = state
        stateChanged = false
        let event = Self.stateEvent(state)
        let streams = server.eventStreams
        owedState.formIntersection(streams)
        for id in streams where !freshStreams.contains(id) {
            if server.output(of: id).isEmpty {
                server.send(event, to: id, at: now)
                owedState.remove(id)
            } else {
                owedState.insert(id)
            }
        }
        freshStreams.removeAll()
    }

    /// Streams owed the last state that have taken their previous event get it now.
    mutating func payOwedState(at now: MonotonicInstant) {
        guard let lastState, !owedState.isEmpty else { return }
        let event = Self.stateEvent(lastState)
        for id in owedState where server.output(of: id).isEmpty {
            server.send(event, to: id, at: now)
            owedState.remove(id)
        }
    }
}
