extension HTTP {
    /// `--connect-to HOST:PORT:ADDRESS:PORT`, curl's option of the same name: a connection
    /// for HOST on PORT goes to ADDRESS on the second PORT instead, while the URL, the `Host`
    /// field, TLS's server name and the certificate check keep HOST. An empty HOST or first
    /// PORT matches any; an empty ADDRESS or second PORT keeps the request's own. An IPv6
    /// address is written in brackets. How test servers on loopback stand in for a service
    /// (docs/network.md).
    public struct ConnectTo: Hashable, Sendable, CustomStringConvertible {
        public var host: String?
        public var port: UInt16?
        public var address: String?
        public var addressPort: UInt16?

        public init(host: String?, port: UInt16?, address: String?, addressPort: UInt16?) {
            self.host = host
            self.port = port
            self.address = address
            self.addressPort = addressPort
        }

        /// Parses `HOST:PORT:ADDRESS:PORT`; the error says what is wrong.
        public init(parsing text: String) throws(ConnectToError) {
            var parts: [Substring] = []
            var rest = Substring(text)
            for index in 0..<4 {
                if rest.hasPrefix("[") {
                    guard let close = rest.firstIndex(of: "]") else { throw .unbalancedBracket(text) }
                    parts.append(rest[rest.index(after: rest.startIndex)..<close])
                    rest = rest[rest.index(after: close)...]
                } else {
                    let end = index == 3 ? rest.endIndex : rest.firstIndex(of: ":") ?? rest.endIndex
                    parts.append(rest[..<end])
                    rest = rest[end...]
                }
                if index < 3 {
                    guard rest.hasPrefix(":") else { throw .notFourParts(text) }
                    rest = rest.dropFirst()
                }
            }
            guard rest.isEmpty else { throw .notFourParts(text) }
            func port(_ part: Substring) throws(ConnectToError) -> UInt16? {
                if part.isEmpty { return nil }
                guard part.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = UInt16(part), number > 0 else {
                    throw .invalidPort(String(part))
                }
                return number
            }
            func host(_ part: Substring) throws(ConnectToError) -> String? {
                if part.isEmpty { return nil }
                guard part.utf8.allSatisfy({ URL.isHostCharacter($0) || $0 == UInt8(ascii: ":") }) else { throw .invalidHost(String(part)) }
                return part.lowercased()
            }
            self.init(host: try host(parts[0]), port: try port(parts[1]), address: try host(parts[2]), addressPort: try port(parts[3]))
        }

        /// Where to connect for `host` on `port`: nil when this rule does not match.
        public func target(host: String, port: UInt16) -> (host: String, port: UInt16)? {
            guard self.host.map({ $0 == host.lowercased() }) ?? true, self.port.map({ $0 == port }) ?? true else { return nil }
            return (address ?? host, addressPort ?? port)
        }

        /// Where to connect for `host` on `port` under `rules`: the first that matches (as
        /// curl takes them), or the request's own.
        public static func target(host: String, port: UInt16, rules: [ConnectTo]) -> (host: String, port: UInt16) {
            for rule in rules { if let target = rule.target(host: host, port: port) { return target } }
            return (host, port)
        }

        public var description: String {
            func bracketed(_ host: String?) -> String { host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "" }
            return "\(bracketed(host)):\(port.map(String.init) ?? ""):\(bracketed(address)):\(addressPort.map(String.init) ?? "")"
        }
    }

    public enum ConnectToError: Error, Hashable, Sendable, CustomStringConvertible {
        case notFourParts(String)
        case unbalancedBracket(String)
        case invalidHost(String)
        case invalidPort(String)

        public var description: String {
            switch self {
            case let .notFourParts(text): "\"\(text)\" is not HOST:PORT:ADDRESS:PORT"
            case let .unbalancedBracket(text): "\"\(text)\" opens a [ without closing it"
            case let .invalidHost(host): "\"\(host)\" is not a host name or address"
            case let .invalidPort(port): "\"\(port)\" is not a port (1-65535)"
            }
        }
    }
}
