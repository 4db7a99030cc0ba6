import Clocks

extension HTTP {
    /// Every client connection of one listening socket, sans-IO (docs/http.md, "Driving
    /// it"). The owner opens a connection for each accepted socket and gets an opaque
    /// `ConnectionID` to map back to it; passes in what each socket did and the application's
    /// answers; calls `advance` once per loop turn; carries out `takeActions` (requests to
    /// handle, sockets to shut or close); and polls until `nextDeadline`.
    ///
    /// Bounds: at most `maximumConnections` are served at once. One more is answered 503 and
    /// closed (RFC 9110 §15.6.4), and up to `maximumRefusing` such answers are in flight;
    /// past that a new socket is closed without one, so a flood of connections costs a few
    /// hundred bytes each for a moment. Each connection parses at most
    /// `bytesParsedPerTurn` per turn and is visited in turn from a rotating start, so one
    /// client cannot keep the loop from the others.
    public struct Server: Sendable {
        public struct Configuration: Hashable, Sendable {
            public var connection: Connection.Configuration
            public var maximumConnections: Int
            public var maximumRefusing: Int

            public init(connection: Connection.Configuration = Connection.Configuration(), maximumConnections: Int = 32, maximumRefusing: Int = 8) {
                self.connection = connection
                self.maximumConnections = maximumConnections
                self.maximumRefusing = maximumRefusing
            }
        }

        /// Names one connection for as long as it is open; never reused.
        public struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
            public let value: UInt64
            public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
            public var description: String { "#\(value)" }
        }

        public enum Action: Hashable, Sendable {
            /// A request for the application; answer with `respond` or `startEventStream`.
            case handle(ConnectionID, Request)
            /// Shut the socket's write side (`shutdown(SHUT_WR)`), keep reading it.
            case shutdownWrite(ConnectionID)
            /// Close the socket; the ID is forgotten.
            case close(ConnectionID, Connection.CloseReason)
        }

        public let configuration: Configuration
        /// The `Date` field's value for every answer (IMF-fixdate, `HTTP.imfFixdate`), set by
        /// the owner each turn from the wall clock when that clock is trusted; nil sends no
        /// Date (RFC 9110 §6.6.1: a server without a reliable clock must not).
        public var date: String?
        var connections: [ConnectionID: Connection] = [:]
        /// The order connections are visited in; the start rotates every turn.
        var order: [ConnectionID] = []
        var refusing: Set<ConnectionID> = []
        var nextID: UInt64 = 1
        var actions: [Action] = []
        var rotation = 0

        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
        }

        /// Connections open now (served and being refused).
        public var connectionCount: Int { connections.count }
        /// Connections being served (not counting those being refused with 503).
        public var servedCount: Int { connections.count - refusing.count }
        /// The connections with an open event stream, for `send(_:toEventStreams:)`'s callers
        /// that pick some.
        public var eventStreams: [ConnectionID] { order.filter { connections[$0]?.isStreamingEvents == true } }

        /// A newly accepted socket. Its ID is returned in every case; a connection over the
        /// cap is already answering 503, or, past `maximumRefusing`, already closed (its
        /// `close` action is waiting).
        public mutating func open(at now: MonotonicInstant) -> ConnectionID {
            let id = ConnectionID(value: nextID)
            nextID += 1
            if servedCount < configuration.maximumConnections {
                insert(id, Connection(configuration: configuration.connection, at: now))
            } else if refusing.count < configuration.maximumRefusing {
                var connection = Connection(configuration: configuration.connection, at: now)
                connection.refuse(Rejection(.serviceUnavailable, "too many connections: try again shortly"), date: date, at: now)
                refusing.insert(id)
                insert(id, connection)
            } else {
                actions.append(.close(id, .overCapacity))
            }
            return id
        }

        private mutating func insert(_ id: ConnectionID, _ connection: Connection) {
            connections[id] = connection
            order.append(id)
            collect(id)
        }

        // MARK: Per connection

        /// What may be read from the connection's socket now (0: do not poll it for input).
        public func readCapacity(of id: ConnectionID) -> Int { connections[id]?.readCapacity ?? 0 }

        /// The connection's unsent output (empty: do not poll it for output).
        public func output(of id: ConnectionID) -> ArraySlice<UInt8> { connections[id]?.output ?? [] }

        public mutating func receive(_ bytes: some Collection<UInt8>, from id: ConnectionID, at now: MonotonicInstant) {
            update(id) { $0.receive(bytes, at: now) }
        }

        public mutating func peerClosed(_ id: ConnectionID, at now: MonotonicInstant) {
            update(id) { $0.peerClosed(at: now) }
        }

        public mutating func sent(_ count: Int, to id: ConnectionID, at now: MonotonicInstant) {
            update(id) { $0.sent(count, at: now) }
        }

        /// The application's answer; ignored for a connection that has closed meanwhile.
        public mutating func respond(to id: ConnectionID, with response: Response, at now: MonotonicInstant) {
            let date = date
            update(id) { $0.respond(response, date: date, at: now) }
        }

        /// Refuses the request in hand (or ends the stream) and closes: see `Connection.refuse`.
        public mutating func refuse(_ id: ConnectionID, with rejection: Rejection, at now: MonotonicInstant) {
            let date = date
            update(id) { $0.refuse(rejection, date: date, at: now) }
        }

        public mutating func startEventStream(on id: ConnectionID, headers: Headers = Headers(), at now: MonotonicInstant) {
            let date = date
            update(id) { $0.startEventStream(headers: headers, date: date, at: now) }
        }

        public mutating func send(_ event: ServerSentEvent, to id: ConnectionID, at now: MonotonicInstant) {
            update(id) { $0.send(event, at: now) }
        }

        /// The same event to every open stream (its bytes made once).
        public mutating func sendToEventStreams(_ event: ServerSentEvent, at now: MonotonicInstant) {
            let bytes = event.bytes
            for id in eventStreams { update(id) { $0.sendEncoded(bytes, at: now) } }
        }

        public mutating func endEventStream(on id: ConnectionID, at now: MonotonicInstant) {
            update(id) { $0.endEventStream(at: now) }
        }

        // MARK: The turn

        /// One turn: every connection's due deadlines, then its parsing within its budget, from
        /// a start that moves on by one each turn.
        public mutating func advance(at now: MonotonicInstant) {
            guard !order.isEmpty else { return }
            rotation = (rotation + 1) % order.count
            let visiting = Array(order[rotation...] + order[..<rotation])
            for id in visiting { update(id) { $0.advance(at: now) } }
        }

        /// When `advance` must next be called; nil with no connection. A time not after the
        /// last call means at once: some client's input waits for its next turn.
        public var nextDeadline: MonotonicInstant? {
            earliest(connections.values.map(\.nextDeadline))
        }

        /// The actions since the last call, in order.
        public mutating func takeActions() -> [Action] {
            defer { actions.removeAll() }
            return actions
        }

        private mutating func update(_ id: ConnectionID, _ change: (inout Connection) -> Void) {
            // Taken out and put back so the connection's buffers are never copied.
            guard var connection = connections.removeValue(forKey: id) else { return }
            change(&connection)
            connections[id] = connection
            collect(id)
        }

        /// Moves a connection's actions to the server's, forgetting it once it closed.
        private mutating func collect(_ id: ConnectionID) {
            guard let pending = connections[id]?.takeActions(), !pending.isEmpty else { return }
            for action in pending {
                switch action {
                case let .handle(request): actions.append(.handle(id, request))
                case .shutdownWrite: actions.append(.shutdownWrite(id))
                case let .close(reason):
                    actions.append(.close(id, reason))
                    connections[id] = nil
                    refusing.remove(id)
                    order.removeAll { $0 == id }
                    if rotation >= order.count { rotation = 0 }
                }
            }
        }
    }
}
