extension HTTP {
    /// The protocol version of a request (RFC 9112 §2.3). Vigil answers every request as
    /// HTTP/1.1, the highest version it conforms to (RFC 9110 §6.2); the request's version
    /// decides persistence (RFC 9112 §9.3) and whether Host is required (RFC 9112 §3.2).
    public enum Version: Hashable, Sendable, CustomStringConvertible {
        case http10
        /// HTTP/1.1, and any later 1.x: a recipient treats a higher minor version as the highest
        /// it implements (RFC 9112 §2.3).
        case http11

        public var description: String {
            switch self {
            case .http10: "HTTP/1.0"
            case .http11: "HTTP/1.1"
            }
        }
    }
}
