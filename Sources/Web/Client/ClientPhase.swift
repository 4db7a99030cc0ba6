extension HTTP {
    /// Where an exchange stands; each phase has its own time-out, so a server that accepts and
    /// says nothing ends in `awaitingResponse`'s, and a slow resolver in `resolving`'s.
    public enum ClientPhase: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case resolving, connecting, securing, sending, awaitingResponse, receiving

        /// How long the phase may last (docs/network.md "The HTTP client").
        public var timeOut: Duration {
            switch self {
            case .resolving, .connecting, .securing, .sending: .seconds(10)
            case .awaitingResponse, .receiving: .seconds(30)
            }
        }

        public var description: String {
            switch self {
            case .resolving: "resolving the name"
            case .connecting: "connecting"
            case .securing: "the TLS handshake"
            case .sending: "sending the request"
            case .awaitingResponse: "waiting for the response"
            case .receiving: "receiving the response"
            }
        }
    }
}
