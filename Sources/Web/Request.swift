extension HTTP {
    /// One complete request as the application sees it (RFC 9110 §3.9, §9; RFC 9112 §3, §6):
    /// its method, its target's path and query percent-decoded, its header fields and its
    /// content. Only `RequestParser` makes these from the wire; tests and other targets make
    /// them directly.
    public struct Request: Hashable, Sendable {
        public var method: Method
        /// The target's path, percent-decoded, always starting with `/`. It is not normalised:
        /// dot segments are kept, and `%2F` is a `/` like any other, so route on it, never use
        /// it as a file path.
        public var path: String
        public var query: Query
        public var version: Version
        public var headers: Headers
        /// The content, exactly Content-Length bytes (empty without one).
        public var body: [UInt8]
        /// The request-target as it came, for logs (RFC 9112 §3.2); for an absolute-form target,
        /// the whole URI.
        public var target: String

        public init(method: Method, path: String, query: Query = Query(), version: Version = .http11,
                    headers: Headers = Headers(), body: [UInt8] = [], target: String? = nil) {
            self.method = method
            self.path = path
            self.query = query
            self.version = version
            self.headers = headers
            self.body = body
            self.target = target ?? path
        }

        /// Whether the client asked for the connection to stay open after this exchange
        /// (RFC 9112 §9.3): HTTP/1.1 unless it sent `Connection: close`; HTTP/1.0 only with
        /// `Connection: keep-alive` (the HTTP/1.0 convention RFC 9112 §C.2.2 describes).
        public var wantsPersistentConnection: Bool {
            if headers.listContains("Connection", token: "close") { return false }
            switch version {
            case .http11: return true
            case .http10: return headers.listContains("Connection", token: "keep-alive")
            }
        }

        /// The body as text (invalid UTF-8 repaired): for JSON and form bodies.
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }
}
