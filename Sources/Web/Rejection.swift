extension HTTP {
    /// Why a request was refused before the application saw it: the status to answer with
    /// (always 4xx or 5xx) and a short reason for the person reading the body or the log. The
    /// connection is closed after the answer, because after a malformed message the next one's
    /// start cannot be trusted (RFC 9112 §6.3, §9.3). docs/http.md lists every rejection.
    public struct Rejection: Error, Hashable, Sendable, CustomStringConvertible {
        public var status: Status
        public var reason: String

        public init(_ status: Status, _ reason: String) {
            self.status = status
            self.reason = reason
        }

        public var description: String { "\(status): \(reason)" }

        /// The answer sent for it: the reason as plain text.
        public var response: Response {
            Response.text(reason + "\n", status: status)
        }
    }
}
