import Clocks

extension HTTP {
    /// One exchange's name, never reused in a run.
    public struct ExchangeID: Hashable, Comparable, Sendable, CustomStringConvertible {
        public let rawValue: UInt64
        public init(_ rawValue: UInt64) { self.rawValue = rawValue }
        public var description: String { "exchange \(rawValue)" }
        public static func < (a: ExchangeID, b: ExchangeID) -> Bool { a.rawValue < b.rawValue }
    }

    /// The client side of HTTP/1.1, sans-IO: many exchanges, one connection each. The runner
    /// performs `Action`s (resolve and connect, TLS, send, close) and reports `Event`s; every
    /// time-out is decided here on the time passed in (docs/network.md "The HTTP client",
    /// docs/http-client.md).
    ///
    /// An exchange goes through the phases of `ClientPhase` in order, each with its own
    /// deadline from the moment it began: `.open` starts `resolving`; `resolved` starts
    /// `connecting`; `connected` starts `securing` over TLS, or `sending` (with the request's
    /// `.send`); `secured` starts `sending`; `sent` starts `awaitingResponse`; the first bytes
    /// start `receiving`, which lasts until the response is whole. An exchange ends with its
    /// response or a `ClientFailure` in `takeFinished()`, and a `.close` for its connection.
    public struct Client: Sendable {
        public enum Action: Sendable, Equatable {
            /// Resolve `host`, connect to `port`, and over TLS verify the server as `host`.
            case open(ExchangeID, host: String, port: UInt16, tls: Bool)
            /// Bytes for the connection (after TLS, the plaintext).
            case send(ExchangeID, [UInt8])
            /// The exchange is over: close its connection, or abandon its resolution or
            /// connect. Sent once for every exchange, however it ended.
            case close(ExchangeID)
        }

        public enum Event: Sendable, Equatable {
            /// The name resolved (a numeric address resolves at once).
            case resolved(ExchangeID)
            /// TCP connected.
            case connected(ExchangeID)
            /// The TLS handshake completed: the server's certificate verified for the host.
            case secured(ExchangeID)
            /// The whole request is with the kernel. Optional: bytes received mean it too.
            case sent(ExchangeID)
            /// Bytes from the server (after TLS, the plaintext).
            case received(ExchangeID, [UInt8])
            /// The server closed the connection (EOF, or TLS's close_notify).
            case peerClosed(ExchangeID)
            /// The runner's failures: resolve, connect, TLS, a socket error.
            case failed(ExchangeID, ClientFailure)
        }

        public struct Configuration: Sendable {
            /// The largest body accepted (`responseTooLarge` past it).
            public var maximumBody = 4 << 20
            /// The largest header section accepted, status line included.
            public var maximumHeader = 64 * 1024
            /// `User-Agent`'s value: `Vigil/<version>` (RFC 9110 §10.1.5).
            public var userAgent = ClientRequest.userAgent
            /// Each phase's time-out, where it differs from `ClientPhase.timeOut`: only a test
            /// that needs a silent server to end soon sets one.
            public var timeOuts: [ClientPhase: Duration] = [:]

            public init() {}

            public func timeOut(_ phase: ClientPhase) -> Duration { timeOuts[phase] ?? phase.timeOut }
        }

        private struct Exchange: Sendable {
            var phase: ClientPhase
            var deadline: MonotonicInstant
            let tls: Bool
            /// The request's bytes, until they are handed to the runner.
            var request: [UInt8]
            var parser: ResponseParser
        }

        public let configuration: Configuration
        private var exchanges: [ExchangeID: Exchange] = [:]
        private var lastID: UInt64 = 0
        private var actions: [Action] = []
        private var finished: [(ExchangeID, Result<ClientResponse, ClientFailure>)] = []

        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
        }

        /// The exchanges not yet ended.
        public var activeExchanges: Int { exchanges.count }

        /// The phase `id` is in; nil once it has ended.
        public func phase(of id: ExchangeID) -> ClientPhase? { exchanges[id]?.phase }

        /// Starts an exchange: its `.open` is in the next `takeActions()`.
        public mutating func start(_ request: ClientRequest, at now: MonotonicInstant) -> ExchangeID {
            lastID += 1
            let id = ExchangeID(lastID)
            let limits = ResponseParser.Limits(headerBytes: configuration.maximumHeader, bodyBytes: configuration.maximumBody)
            exchanges[id] = Exchange(
                phase: .resolving, deadline: now + configuration.timeOut(.resolving), tls: request.url.scheme == .https,
                request: request.serialized(userAgent: configuration.userAgent),
                parser: ResponseParser(limits: limits, requestWasHead: request.method == .head))
            actions.append(.open(id, host: request.url.host, port: request.url.port, tls: request.url.scheme == .https))
            return id
        }

        /// What the runner reports. An event for an exchange that has ended (cancelled, timed
        /// out) is ignored: the runner may report what was under way when `.close` came.
        public mutating func handle(_ event: Event, at now: MonotonicInstant) {
            switch event {
            case let .resolved(id):
                enter(.connecting, of: id, from: [.resolving], at: now)
            case let .connected(id):
                guard let exchange = exchanges[id] else { return }
                if exchange.tls {
                    enter(.securing, of: id, from: [.resolving, .connecting], at: now)
                } else if enter(.sending, of: id, from: [.resolving, .connecting], at: now) {
                    sendRequest(id)
                }
            case let .secured(id):
                if enter(.sending, of: id, from: [.resolving, .connecting, .securing], at: now) { sendRequest(id) }
            case let .sent(id):
                enter(.awaitingResponse, of: id, from: [.sending], at: now)
            case let .received(id, bytes):
                guard !bytes.isEmpty, var exchange = exchanges[id] else { return }
                // An answer before the request is known to be out is still an answer: a server
                // may refuse a request before it has read all of it.
                if exchange.phase != .receiving {
                    exchange.phase = .receiving
                    exchange.deadline = now + configuration.timeOut(.receiving)
                }
                let outcome = exchange.parser.receive(bytes)
                exchanges[id] = exchange
                conclude(id, outcome)
            case let .peerClosed(id):
                guard var exchange = exchanges[id] else { return }
                let outcome = exchange.parser.peerClosed()
                exchanges[id] = exchange
                conclude(id, outcome.isNeedsMore ? .failed(.closedBeforeResponse) : outcome)
            case let .failed(id, failure):
                end(id, .failure(failure))
            }
        }

        /// Ends exchanges whose phase has lasted past its time-out.
        public mutating func advance(to now: MonotonicInstant) {
            for id in exchanges.keys.sorted() {
                guard let exchange = exchanges[id], now >= exchange.deadline else { continue }
                end(id, .failure(.timedOut(exchange.phase)))
            }
        }

        /// Ends an exchange no one wants any more: its connection is closed, no result comes.
        public mutating func cancel(_ id: ExchangeID) {
            guard exchanges.removeValue(forKey: id) != nil else { return }
            actions.append(.close(id))
        }

        public mutating func takeActions() -> [Action] {
            defer { actions.removeAll() }
            return actions
        }

        /// The exchanges that ended since the last call, in the order they ended.
        public mutating func takeFinished() -> [(ExchangeID, Result<ClientResponse, ClientFailure>)] {
            defer { finished.removeAll() }
            return finished
        }

        /// The earliest phase deadline.
        public var nextDeadline: MonotonicInstant? { exchanges.values.map(\.deadline).min() }

        // MARK: Steps

        /// Moves `id` into `phase` when it is in one of `earlier`: false (and nothing done)
        /// when it has ended or is already past it (a late or repeated report).
        @discardableResult
        private mutating func enter(_ phase: ClientPhase, of id: ExchangeID, from earlier: Set<ClientPhase>, at now: MonotonicInstant) -> Bool {
            guard var exchange = exchanges[id], earlier.contains(exchange.phase) else { return false }
            exchange.phase = phase
            exchange.deadline = now + configuration.timeOut(phase)
            exchanges[id] = exchange
            return true
        }

        private mutating func sendRequest(_ id: ExchangeID) {
            guard let bytes = exchanges[id]?.request else { return }
            exchanges[id]?.request = []
            actions.append(.send(id, bytes))
        }

        private mutating func conclude(_ id: ExchangeID, _ outcome: ResponseParser.Outcome) {
            switch outcome {
            case .needsMore: break
            case let .complete(response): end(id, .success(response))
            case let .failed(failure): end(id, .failure(failure))
            }
        }

        private mutating func end(_ id: ExchangeID, _ result: Result<ClientResponse, ClientFailure>) {
            guard exchanges.removeValue(forKey: id) != nil else { return }
            finished.append((id, result))
            actions.append(.close(id))
        }
    }
}

extension HTTP.ResponseParser.Outcome {
    var isNeedsMore: Bool {
        if case .needsMore = self { true } else { false }
    }
}
