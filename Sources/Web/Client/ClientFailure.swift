extension HTTP {
    /// Why an exchange ended without a response. Each `description` is a line a user can act
    /// on; none holds a secret (requests with secrets are never described).
    public enum ClientFailure: Error, Hashable, Sendable, CustomStringConvertible {
        case resolveFailed(String)
        case connectFailed(String)
        /// The handshake failed, a certificate did not verify among them: never ignored.
        case tlsFailed(String)
        case timedOut(ClientPhase)
        case malformedResponse(String)
        case responseTooLarge
        case closedBeforeResponse

        public var description: String {
            switch self {
            case let .resolveFailed(reason): "the name could not be resolved: \(reason)"
            case let .connectFailed(reason): "could not connect: \(reason)"
            case let .tlsFailed(reason): "TLS failed: \(reason)"
            case let .timedOut(phase): "timed out \(phase) (after \(phase.timeOut))"
            case let .malformedResponse(reason): "the server's response is malformed: \(reason)"
            case .responseTooLarge: "the server's response is larger than Vigil accepts"
            case .closedBeforeResponse: "the server closed the connection before a whole response"
            }
        }
    }
}
