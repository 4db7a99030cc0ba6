extension HTTP {
    /// A request Vigil sends (RFC 9110 §9 methods, RFC 9112 §3 request line, §5 field lines,
    /// §6 content). One request per connection: `Connection: close` (RFC 9112 §9.6), so the
    /// response ends at the latest when the server closes, and no connection outlives its
    /// exchange (docs/network.md "The HTTP client").
    public struct ClientRequest: Sendable {
        public var method: Method
        public var url: URL
        /// Fields besides `Host`, `Content-Length`, `Connection` and `User-Agent`, which
        /// `serialized` writes itself.
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public init(method: Method, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }

        /// `User-Agent` (RFC 9110 §10.1.5): services log it, and an operator who sees trouble
        /// from Vigil can tell whose it is.
        public static let userAgent = "Vigil"

        /// The bytes on the wire. Field values with CR, LF or NUL are dropped (a value from a
        /// configuration must never split a header, RFC 9110 §5.5).
        public func serialized(userAgent: String = ClientRequest.userAgent) -> [UInt8] {
            var text = "\(method.rawValue) \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\nUser-Agent: \(userAgent)\r\nConnection: close\r\n"
            for field in headers where Self.isSafe(field.name) && Self.isSafe(field.value) && !field.name.isEmpty {
                text += "\(field.name): \(field.value)\r\n"
            }
            if !body.isEmpty || method == .post { text += "Content-Length: \(body.count)\r\n" }
            text += "\r\n"
            return Array(text.utf8) + body
        }

        static func isSafe(_ text: String) -> Bool {
            !text.utf8.contains { $0 == HTTP.cr || $0 == HTTP.lf || $0 == 0 }
        }
    }
}
