extension Nightscout {
    /// A request as the HTTP layer parsed it: what Nightscout's Express routes look at
    /// (docs/nightscout-api.md "Requests").
    public struct Request: Sendable {
        /// `GET` or `HEAD`; anything else is answered 405 (this API only reads).
        public var method: String
        /// The path without the query string, percent-decoded: `/api/v1/entries/sgv.json`.
        public var path: String
        /// The query's name/value pairs in order, percent-decoded (`+` already a space):
        /// `[("count", "10"), ("find[date][$gte]", "1795327500000")]`.
        public var query: [(name: String, value: String)]
        /// Header fields in order; names are matched without regard to ASCII case (RFC 9110 §5.1).
        public var headers: [(name: String, value: String)]

        public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = []) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
        }

        /// The first value of header `name`, or nil.
        public func header(_ name: String) -> String? {
            headers.first { Self.sameASCIIName($0.name, name) }?.value
        }

        /// The first value of query parameter `name` (exact, as Nightscout's `qs` matches), or nil.
        public func parameter(_ name: String) -> String? {
            query.first { $0.name == name }?.value
        }

        static func sameASCIIName(_ a: String, _ b: String) -> Bool {
            a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
        }

        private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
    }

    /// What to send back: the status code, the media type of the body and the body. The HTTP
    /// layer adds the framing (length, connection) and drops the body for `HEAD`.
    public struct Response: Equatable, Sendable {
        public var status: Int
        public var contentType: String
        public var body: [UInt8]

        public init(status: Int, contentType: String, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }

        /// Express's `res.json`: the media type it sets.
        public static let jsonType = "application/json; charset=utf-8"

        static func json(_ value: JSON, status: Int = 200) -> Response {
            Response(status: status, contentType: jsonType, body: Array(value.rendered.utf8))
        }

        static func text(_ text: String, type: String = "text/plain; charset=utf-8") -> Response {
            Response(status: 200, contentType: type, body: Array(text.utf8))
        }

        /// Nightscout's error body (`lib/middleware/send-json-status.js`):
        /// `{"status":401,"message":"Unauthorized","description":"Invalid/Missing"}`.
        static func error(_ failure: Failure) -> Response {
            json(.object([("status", .int(Int64(failure.status))), ("message", .string(failure.message)),
                          ("description", .string(failure.description))]), status: failure.status)
        }
    }

    /// Why a request was refused, in the words of Nightscout's error body. Descriptions name
    /// what was wrong with the request, never a credential it carried.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var status: Int
        public var message: String
        public var description: String

        public init(status: Int, message: String, description: String) {
            self.status = status
            self.message = message
            self.description = description
        }

        /// What Nightscout answers a request it cannot authorize (`lib/authorization/index.js`).
        public static let unauthorized = Failure(status: 401, message: "Unauthorized", description: "Invalid/Missing")

        static func badRequest(_ reason: String) -> Failure { Failure(status: 400, message: "Bad Request", description: reason) }

        static func notFound(_ path: String) -> Failure {
            Failure(status: 404, message: "Not Found", description: "no Nightscout API resource at \(String(path.prefix(80)))")
        }
    }
}
