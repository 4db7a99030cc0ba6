import Clocks

extension HTTP {
    /// One exchange's name, never reused in a run.
    public struct ExchangeID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt64
        public init(_ rawValue: UInt64) { self.rawValue = rawValue }
        public var description: String { "exchange \(rawValue)" }
    }

    /// The client side of HTTP/1.1, sans-IO: many exchanges, one connection each. The runner
    /// performs `Action`s (resolve and connect, TLS, send, close) and reports `Event`s; every
    /// time-out is decided here on the time passed in (docs/network.md "The HTTP client").
    public struct Client: Sendable {
        public enum Action: Sendable, Equatable {
            /// Resolve `host`, connect to `port`, and over TLS verify the server as `host`.
            case open(ExchangeID, host: String, port: UInt16, tls: Bool)
            case send(ExchangeID, [UInt8])
            case close(ExchangeID)
        }

        public enum Event: Sendable, Equatable {
            case resolved(ExchangeID)
            case connected(ExchangeID)
            case secured(ExchangeID)
            case received(ExchangeID, [UInt8])
            case peerClosed(ExchangeID)
            case failed(ExchangeID, ClientFailure)
        }

        public struct Configuration: Sendable {
            /// The largest body accepted.
            public var maximumBody = 4 << 20
            public init() {}
        }

        public let configuration: Configuration

        public init(configuration: Configuration = Configuration()) {
            self.configuration = configuration
        }

        // Skeleton: the exchanges' state machine replaces every body below.

        public mutating func start(_ request: ClientRequest, at now: MonotonicInstant) -> ExchangeID {
            fatalError("HTTP.Client.start: skeleton")
        }

        public mutating func handle(_ event: Event, at now: MonotonicInstant) {
            fatalError("HTTP.Client.handle: skeleton")
        }

        public mutating func cancel(_ id: ExchangeID) {
            fatalError("HTTP.Client.cancel: skeleton")
        }

        public mutating func advance(to now: MonotonicInstant) {}

        public mutating func takeActions() -> [Action] { [] }

        public mutating func takeFinished() -> [(ExchangeID, Result<ClientResponse, ClientFailure>)] { [] }

        public var nextDeadline: MonotonicInstant? { nil }
    }
}
