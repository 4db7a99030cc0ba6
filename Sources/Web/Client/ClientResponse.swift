extension HTTP {
    /// A whole response as the client received it (RFC 9112 §4 status line, §5 fields, §6
    /// body: Content-Length, chunked, or to the close of the connection).
    public struct ClientResponse: Sendable, Equatable {
        /// The status code (RFC 9110 §15), 100 to 599.
        public var status: Int
        public var headers: Headers
        public var body: [UInt8]

        public init(status: Int, headers: Headers = Headers(), body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// 2xx (RFC 9110 §15.3).
        public var isSuccess: Bool { (200..<300).contains(status) }
    }
}
