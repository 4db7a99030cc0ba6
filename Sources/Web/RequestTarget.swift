extension HTTP {
    /// The request-target of a GET, HEAD or POST (RFC 9112 §3.2): origin-form
    /// (`/path?query`, what clients send to an origin server) or absolute-form
    /// (`http://host/path?query`, which servers must accept too, §3.2.2). The authority and
    /// asterisk forms belong to CONNECT and OPTIONS, which Vigil does not implement.
    ///
    /// Octets are checked loosely: any visible ASCII but `#` (RFC 3986 §3 excludes a fragment
    /// from what is sent), because clients send `[`, `]` and `|` unencoded in queries, and
    /// Nightscout's `find[date][$gte]` must get through. A `%` must start a valid
    /// percent-encoding (RFC 3986 §2.1), and what it decodes to must be UTF-8.
    public struct RequestTarget: Hashable, Sendable {
        /// Percent-decoded, starting with `/`.
        public var path: String
        public var query: Query
        /// The authority of an absolute-form target (`host:port`), nil for origin-form.
        public var authority: String?

        public init(parsing bytes: some Collection<UInt8>) throws(Rejection) {
            let target = Array(bytes)
            guard let bad = target.first(where: { !(0x21...0x7E).contains($0) || $0 == UInt8(ascii: "#") }) else {
                try self.init(validated: target)
                return
            }
            throw bad == UInt8(ascii: "#")
                ? Rejection(.badRequest, "request target holds a fragment (#)")
                : Rejection(.badRequest, "request target holds a byte that is not visible ASCII")
        }

        private init(validated target: [UInt8]) throws(Rejection) {
            var rest = target[...]
            if target.first == UInt8(ascii: "/") {
                authority = nil
            } else if let afterScheme = Self.afterHTTPScheme(target) {
                let authorityEnd = target[afterScheme...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? target.endIndex
                let host = target[afterScheme..<authorityEnd]
                // RFC 9110 §4.2.1: an http URI with an empty host is invalid; §4.2.4: userinfo
                // is deprecated and a recipient should treat it as an error.
                guard !host.isEmpty else { throw Rejection(.badRequest, "absolute request target has no host") }
                guard !host.contains(UInt8(ascii: "@")) else { throw Rejection(.badRequest, "absolute request target holds userinfo") }
                authority = String(decoding: host, as: UTF8.self)
                rest = target[authorityEnd...]
            } else {
                throw Rejection(.badRequest, "request target is neither a path nor an http URI")
            }
            let queryStart = rest.firstIndex(of: UInt8(ascii: "?"))
            let rawPath = rest[..<(queryStart ?? rest.endIndex)]
            // An absolute URI's empty path is "/" (RFC 9110 §4.2.3).
            let decodedPath = rawPath.isEmpty ? [UInt8(ascii: "/")] : try Self.percentDecoded(rawPath, plusIsSpace: false, what: "path")
            guard !decodedPath.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw Rejection(.badRequest, "path holds a control character")
            }
            path = try Self.utf8(decodedPath, what: "path")
            query = Query()
            if let queryStart {
                query = try Self.formQuery(rest[(queryStart + 1)...])
            }
        }

        /// The index after `http://` or `https://` (the scheme without regard to case,
        /// RFC 3986 §3.1), or nil.
        private static func afterHTTPScheme(_ target: [UInt8]) -> Int? {
            for scheme in ["http://", "https://"] where target.count >= scheme.utf8.count {
                if zip(target, scheme.utf8).allSatisfy({ HTTP.asciiLowercase($0) == $1 }) { return scheme.utf8.count }
            }
            return nil
        }

        /// WHATWG URL Standard §5.1, application/x-www-form-urlencoded parsing; see `Query`.
        private static func formQuery(_ raw: ArraySlice<UInt8>) throws(Rejection) -> Query {
            var items: [Query.Item] = []
            for piece in raw.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let equals = piece.firstIndex(of: UInt8(ascii: "="))
                let name = piece[..<(equals ?? piece.endIndex)]
                let value = equals.map { piece[($0 + 1)...] } ?? []
                items.append(Query.Item(name: try utf8(percentDecoded(name, plusIsSpace: true, what: "query"), what: "query"),
                                        value: try utf8(percentDecoded(value, plusIsSpace: true, what: "query"), what: "query")))
            }
            return Query(items)
        }

        static func percentDecoded(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool, what: String) throws(Rejection) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.endIndex,
                          let high = HTTP.hexValue(bytes[index + 1]), let low = HTTP.hexValue(bytes[index + 2]) else {
                        throw Rejection(.badRequest, "\(what) holds a % that is not followed by two hex digits")
                    }
                    out.append(high << 4 | low)
                    index += 3
                } else {
                    out.append(plusIsSpace && byte == UInt8(ascii: "+") ? HTTP.space : byte)
                    index += 1
                }
            }
            return out
        }

        private static func utf8(_ bytes: [UInt8], what: String) throws(Rejection) -> String {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw Rejection(.badRequest, "\(what) is not UTF-8 once percent-decoded")
            }
            return text
        }
    }
}
