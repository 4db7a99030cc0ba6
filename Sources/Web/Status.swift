extension HTTP {
    /// A response status code and its reason phrase (RFC 9110 §15). The phrase is for people
    /// only (RFC 9112 §4): clients act on the code.
    public struct Status: Hashable, Sendable, CustomStringConvertible {
        public var code: Int
        public var reasonPhrase: String

        public init(code: Int, reasonPhrase: String) {
            self.code = code
            self.reasonPhrase = reasonPhrase
        }

        /// 1xx: a message with no content (RFC 9110 §15.2).
        public var isInformational: Bool { (100..<200).contains(code) }
        /// 4xx and 5xx (RFC 9110 §15.5, §15.6).
        public var isError: Bool { (400..<600).contains(code) }
        /// Statuses whose responses never carry content (RFC 9110 §6.4.1): 1xx, 204, 304.
        public var forbidsContent: Bool { isInformational || code == 204 || code == 304 }

        public var description: String { "\(code) \(reasonPhrase)" }

        public static let `continue` = Status(code: 100, reasonPhrase: "Continue")                    // §15.2.1
        public static let ok = Status(code: 200, reasonPhrase: "OK")                                  // §15.3.1
        public static let noContent = Status(code: 204, reasonPhrase: "No Content")                   // §15.3.5
        public static let found = Status(code: 302, reasonPhrase: "Found")                            // §15.4.3
        public static let seeOther = Status(code: 303, reasonPhrase: "See Other")                     // §15.4.4
        public static let notModified = Status(code: 304, reasonPhrase: "Not Modified")               // §15.4.5
        public static let badRequest = Status(code: 400, reasonPhrase: "Bad Request")                 // §15.5.1
        public static let unauthorized = Status(code: 401, reasonPhrase: "Unauthorized")              // §15.5.2
        public static let forbidden = Status(code: 403, reasonPhrase: "Forbidden")                    // §15.5.4
        public static let notFound = Status(code: 404, reasonPhrase: "Not Found")                     // §15.5.5
        public static let methodNotAllowed = Status(code: 405, reasonPhrase: "Method Not Allowed")    // §15.5.6
        public static let requestTimeout = Status(code: 408, reasonPhrase: "Request Timeout")         // §15.5.9
        public static let lengthRequired = Status(code: 411, reasonPhrase: "Length Required")         // §15.5.12
        public static let contentTooLarge = Status(code: 413, reasonPhrase: "Content Too Large")      // §15.5.14
        public static let uriTooLong = Status(code: 414, reasonPhrase: "URI Too Long")                // §15.5.15
        public static let unsupportedMediaType = Status(code: 415, reasonPhrase: "Unsupported Media Type") // §15.5.16
        public static let expectationFailed = Status(code: 417, reasonPhrase: "Expectation Failed")   // §15.5.18
        public static let unprocessableContent = Status(code: 422, reasonPhrase: "Unprocessable Content") // §15.5.21
        /// RFC 6585 §4.
        public static let tooManyRequests = Status(code: 429, reasonPhrase: "Too Many Requests")
        /// RFC 6585 §5.
        public static let requestHeaderFieldsTooLarge = Status(code: 431, reasonPhrase: "Request Header Fields Too Large")
        public static let internalServerError = Status(code: 500, reasonPhrase: "Internal Server Error") // §15.6.1
        public static let notImplemented = Status(code: 501, reasonPhrase: "Not Implemented")         // §15.6.2
        public static let serviceUnavailable = Status(code: 503, reasonPhrase: "Service Unavailable") // §15.6.4
        public static let httpVersionNotSupported = Status(code: 505, reasonPhrase: "HTTP Version Not Supported") // §15.6.6
    }
}
