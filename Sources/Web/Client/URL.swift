extension HTTP {
    /// An absolute `http` or `https` URI as a client needs it (RFC 9110 §4.2.1, §4.2.2; the
    /// generic syntax of RFC 3986 §3): the scheme, the host, the port, and the request target in
    /// origin form (RFC 9112 §3.2.1). Only what Vigil sends to: user information is refused
    /// (RFC 9110 §4.2.4 deprecates it, and a secret in a URL ends up in logs), so is a
    /// fragment (never sent) and an empty host.
    public struct URL: Hashable, Sendable, CustomStringConvertible {
        public enum Scheme: String, Hashable, Sendable {
            case http, https

            /// RFC 9110 §4.2.1 (80) and §4.2.2 (443).
            public var defaultPort: UInt16 { self == .http ? 80 : 443 }
        }

        public var scheme: Scheme
        /// A registered name in lower case, an IPv4 address, or an IPv6 address without its
        /// brackets.
        public var host: String
        public var port: UInt16
        /// The path and query, starting with `/` (RFC 9112 §3.2.1 origin-form).
        public var target: String

        public init(scheme: Scheme, host: String, port: UInt16? = nil, target: String = "/") {
            self.scheme = scheme
            self.host = host
            self.port = port ?? scheme.defaultPort
            self.target = target.hasPrefix("/") ? target : "/" + target
        }

        /// The URL with `path` (and its query) appended to this one's path: a site configured
        /// as `https://host/ns` keeps its prefix for `/api/v1/entries`.
        public func appending(_ path: String) -> URL {
            var base = target
            if let query = base.firstIndex(of: "?") { base = String(base[..<query]) }
            while base.hasSuffix("/") { base.removeLast() }
            return URL(scheme: scheme, host: host, port: port, target: base + (path.hasPrefix("/") ? path : "/" + path))
        }

        /// `Host`'s value (RFC 9110 §7.2): the port only when it is not the scheme's default,
        /// an IPv6 address in brackets.
        public var authority: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == scheme.defaultPort ? name : "\(name):\(port)"
        }

        /// Whether the host is this machine (`localhost`, 127.0.0.0/8, ::1), where plain HTTP
        /// crosses no network.
        public var isLoopback: Bool {
            host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }

        public var description: String { "\(scheme.rawValue)://\(authority)\(target)" }

        /// Parses an absolute URL; every refusal says what is wrong with it.
        public init(parsing text: String) throws(URLError) {
            guard let colon = text.firstIndex(of: ":") else { throw .notAbsolute }
            guard let scheme = Scheme(rawValue: text[..<colon].lowercased()) else {
                throw .unsupportedScheme(String(text[..<colon]))
            }
            let rest = text[text.index(after: colon)...]
            guard rest.hasPrefix("//") else { throw .notAbsolute }
            let afterSlashes = rest.dropFirst(2)
            if afterSlashes.contains("#") { throw .fragment }
            let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" } ?? afterSlashes.endIndex
            let authority = afterSlashes[..<authorityEnd]
            var target = String(afterSlashes[authorityEnd...])
            if target.hasPrefix("?") { target = "/" + target }
            if target.isEmpty { target = "/" }
            guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidCharacter }
            if authority.contains("@") { throw .userInformation }
            let host: Substring
            var portText: Substring?
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { throw .invalidHost(String(authority)) }
                host = authority[authority.index(after: authority.startIndex)..<close]
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw .invalidHost(String(authority)) }
                    portText = after.dropFirst()
                }
                guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                    throw .invalidHost(String(host))
                }
            } else {
                if let portColon = authority.lastIndex(of: ":") {
                    host = authority[..<portColon]
                    portText = authority[authority.index(after: portColon)...]
                } else {
                    host = authority
                }
                // RFC 3986 §3.2.2 reg-name, restricted to what DNS names hold (letters, digits,
                // '-', '.'); percent-encoded names are not something Vigil needs to reach.
                guard !host.isEmpty else { throw .emptyHost }
                guard host.utf8.allSatisfy(Self.isHostCharacter) else {
                    throw .invalidHost(String(host))
                }
            }
            var port: UInt16?
            if let portText, !portText.isEmpty {
                guard portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = UInt16(portText), number > 0 else {
                    throw .invalidPort(String(portText))
                }
                port = number
            }
            self.init(scheme: scheme, host: host.lowercased(), port: port, target: target)
        }

        static func isHostCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."): true
            default: false
            }
        }

        /// A `Location` (RFC 9110 §10.2.2) against this URL: absolute, or absolute-path.
        public func resolving(_ reference: String) -> URL? {
            if reference.hasPrefix("//") { return try? URL(parsing: scheme.rawValue + ":" + reference) }
            if reference.hasPrefix("/") { return URL(scheme: scheme, host: host, port: port, target: reference) }
            return try? URL(parsing: reference)
        }
    }

    /// Why a text is not a URL Vigil can send to.
    public enum URLError: Error, Hashable, Sendable, CustomStringConvertible {
        case notAbsolute
        case unsupportedScheme(String)
        case userInformation
        case fragment
        case emptyHost
        case invalidHost(String)
        case invalidPort(String)
        case invalidCharacter

        public var description: String {
            switch self {
            case .notAbsolute: "not an absolute URL (it must start with https:// or http://)"
            case let .unsupportedScheme(scheme): "the scheme \"\(scheme)\" is not http or https"
            case .userInformation: "user information (name@ or name:password@) is not allowed in the URL"
            case .fragment: "a fragment (#...) is not allowed in the URL"
            case .emptyHost: "the URL has no host"
            case let .invalidHost(host): "\"\(host)\" is not a host name or address"
            case let .invalidPort(port): "\"\(port)\" is not a port (1-65535)"
            case .invalidCharacter: "the URL's path or query holds a space or a character outside ASCII (percent-encode it)"
            }
        }
    }
}
