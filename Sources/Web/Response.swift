extension HTTP {
    /// One response as the application writes it (RFC 9110 §15, RFC 9112 §4): a status,
    /// header fields and the content. The framing fields are the serializer's, not the
    /// application's: `Content-Length` is always computed from `body` (RFC 9112 §6.3 makes
    /// it the only framing a persistent HTTP/1.1 response without chunking has), and
    /// `Connection` is set from the connection's decision; any the application sets, and any
    /// `Transfer-Encoding`, are replaced (ResponseSerializer).
    public struct Response: Hashable, Sendable {
        public var status: Status
        public var headers: Headers
        public var body: [UInt8]

        public init(status: Status = .ok, headers: Headers = Headers(), body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// JSON text, `application/json` (RFC 8259 §11: UTF-8, and no charset parameter is
        /// defined for it).
        public static func json(_ text: String, status: Status = .ok) -> Response {
            Response(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
        }

        /// Plain text in UTF-8 (RFC 2046 §4.1.3; the charset named because text/plain's
        /// default is US-ASCII).
        public static func text(_ text: String, status: Status = .ok) -> Response {
            Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
        }

        /// An HTML page in UTF-8.
        public static func html(_ text: String, status: Status = .ok) -> Response {
            Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(text.utf8))
        }

        /// 405 for a method this server implements but the resource does not take; RFC 9110
        /// §15.5.6 requires the `Allow` field listing the ones it does (§10.2.1).
        public static func methodNotAllowed(allowing methods: [Method]) -> Response {
            var response = text("method not allowed here\n", status: .methodNotAllowed)
            response.headers.set("Allow", methods.map(\.rawValue).joined(separator: ", "))
            return response
        }

        /// Adds or replaces one header field, for chaining on the helpers above.
        public func setting(_ name: String, _ value: String) -> Response {
            var copy = self
            copy.headers.set(name, value)
            return copy
        }
    }
}
