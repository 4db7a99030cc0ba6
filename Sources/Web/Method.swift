extension HTTP {
    /// The request methods Vigil implements (RFC 9110 §9). Any other method is refused by the
    /// parser with 501 Not Implemented, which RFC 9110 §9.1 asks for a method the server does
    /// not implement; 405 Method Not Allowed is for a method this server implements but a
    /// resource does not take (a POST to a page), which only the application knows, so it
    /// answers that with `Response.methodNotAllowed(allowing:)`.
    public enum Method: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// RFC 9110 §9.3.1.
        case get = "GET"
        /// RFC 9110 §9.3.2: the headers GET would send, without the content.
        case head = "HEAD"
        /// RFC 9110 §9.3.3.
        case post = "POST"

        /// The method token as it appears on the request line; methods are case-sensitive
        /// (RFC 9110 §9.1), so `get` is not GET.
        public init?(token: some Collection<UInt8>) {
            guard let method = Self.allCases.first(where: { $0.rawValue.utf8.elementsEqual(token) }) else { return nil }
            self = method
        }

        public var description: String { rawValue }
    }
}
