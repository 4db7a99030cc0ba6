extension VigilConfiguration {
    /// `[web]`: the page and the Nightscout read API on the home network (docs/web.md
    /// "Configuration"). Absent: nothing listens. The files it names are read by the
    /// executable (`filesToRead`), never by the core.
    public struct Web: Equatable, Sendable {
        /// `listen`: where the page is served.
        public var listen: ListenAddress
        /// `token-file`: the access token's file, as written (relative paths are relative to
        /// the configuration file's folder: `path(_:relativeTo:)`).
        public var tokenFile: String
        /// `certificate` and `key`: HTTPS with this certificate chain and private key (PEM);
        /// both or neither (the parser refuses one alone).
        public var certificate: String?
        public var key: String?
        /// Where each file is named, for errors about the file at the line that names it; a
        /// key left at its default is named by the `[web]` header.
        public var tokenFilePosition: TOML.Position
        public var certificatePosition: TOML.Position
        public var keyPosition: TOML.Position

        public static let defaultTokenFile = "/etc/vigil/web-token"

        public init(listen: ListenAddress = ListenAddress(), tokenFile: String = Web.defaultTokenFile, certificate: String? = nil,
                    key: String? = nil, at position: TOML.Position = TOML.Position(line: 1, column: 1)) {
            self.listen = listen
            self.tokenFile = tokenFile
            self.certificate = certificate
            self.key = key
            self.tokenFilePosition = position
            self.certificatePosition = position
            self.keyPosition = position
        }

        /// HTTPS: a certificate and its key are configured.
        public var isHTTPS: Bool { certificate != nil && key != nil }

        /// `path` as the executable opens it: absolute as written, else in `configurationFile`'s folder.
        public static func path(_ path: String, relativeTo configurationFile: String) -> String {
            guard !path.hasPrefix("/") else { return path }
            guard let slash = configurationFile.lastIndex(of: "/") else { return path }
            return String(configurationFile[...slash]) + path
        }
    }
}

extension VigilConfiguration.Web {
    /// `listen = "host:port"`: a numeric IPv4 address, an IPv6 address in brackets, or a host
    /// name the resolver knows, with an optional port (default 8080).
    public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
        public var host: String
        public var port: UInt16

        public static let defaultPort: UInt16 = 8080

        public init(host: String = "0.0.0.0", port: UInt16 = ListenAddress.defaultPort) {
            self.host = host
            self.port = port
        }

        /// "0.0.0.0:8080", "[::]:8080": as `listen` is written and as the log says it.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Parses `listen`; the error is a sentence saying what is wrong and what would be right.
        public init(parsing text: String) throws(ParseError) {
            var host: Substring
            var portText: Substring?
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { throw ParseError("\(TOML.quoted(text)): an IPv6 address in brackets needs its closing ]") }
                host = text[text.index(after: text.startIndex)..<close]
                let rest = text[text.index(after: close)...]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":") else { throw ParseError("\(TOML.quoted(text)): after ] comes :port, as in \"[::]:8080\"") }
                    portText = rest.dropFirst()
                }
                guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":") else {
                    throw ParseError("\(TOML.quoted(text)): \(TOML.quoted(String(host))) in brackets is not an IPv6 address")
                }
            } else {
                let colons = text.count { $0 == ":" }
                if colons > 1 { throw ParseError("\(TOML.quoted(text)): write an IPv6 address in brackets, as in \"[::]:8080\"") }
                if let colon = text.firstIndex(of: ":") {
                    host = text[..<colon]
                    portText = text[text.index(after: colon)...]
                } else {
                    host = Substring(text)
                }
                guard !host.isEmpty else { throw ParseError("\(TOML.quoted(text)): the host is missing: \"0.0.0.0:8080\" listens on every IPv4 address") }
                guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }), host.count <= 253 else {
                    throw ParseError("\(TOML.quoted(text)): \(TOML.quoted(String(host))) is neither an IP address nor a host name")
                }
                if host.allSatisfy({ $0.isNumber || $0 == "." }) {
                    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
                    guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && Int($0)! <= 255 }) else {
                        throw ParseError("\(TOML.quoted(text)): \(TOML.quoted(String(host))) is not an IPv4 address (four numbers 0 to 255)")
                    }
                }
            }
            self.host = String(host)
            self.port = Self.defaultPort
            if let portText {
                guard let port = UInt16(portText), port > 0 else {
                    throw ParseError("\(TOML.quoted(text)): the port must be a number from 1 to 65535")
                }
                self.port = port
            }
        }

        public struct ParseError: Error, Equatable, CustomStringConvertible {
            public let description: String
            init(_ description: String) { self.description = description }
        }
    }
}
