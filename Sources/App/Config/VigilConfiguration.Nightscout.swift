extension VigilConfiguration {
    /// `[nightscout]`: upload to a Nightscout site (docs/nightscout-upload.md, docs/network.md
    /// "Configuration"). Absent: nothing is uploaded and nothing is queued.
    ///
    /// Holds a secret: its description and mirror name the site and which credential is
    /// configured, never the credential.
    public struct Nightscout: Equatable, Sendable, CustomStringConvertible, CustomReflectable {
        /// `url`, as written (without a final "/").
        public var url: String
        public var site: Site
        /// `api-secret`: the site's API_SECRET (sent only as its SHA-1).
        public var apiSecret: String?
        /// `token`: an access token whose roles may create entries, treatments and device status.
        public var token: String?

        public init(url: String, site: Site, apiSecret: String? = nil, token: String? = nil) {
            self.url = url
            self.site = site
            self.apiSecret = apiSecret
            self.token = token
        }

        /// The site's address split as a client needs it.
        public struct Site: Equatable, Sendable {
            public var https: Bool
            public var host: String
            public var port: Int
            /// "" or "/path", no final "/": the API is at `<path>/api/v1/...`.
            public var path: String

            public init(https: Bool, host: String, port: Int, path: String) {
                self.https = https
                self.host = host
                self.port = port
                self.path = path
            }
        }

        public var description: String {
            "Nightscout at \(url) with " + (apiSecret != nil ? "the API secret" : token != nil ? "an access token" : "no credential")
        }

        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

        /// The credential as the uploader sends it.
        public var credential: App.Nightscout.UploadCredential? {
            if let apiSecret { return .apiSecret(apiSecret) }
            if let token { return .token(token) }
            return nil
        }

        /// Why `text` is not a site Vigil uploads to.
        public enum URLProblem: Error, Equatable, CustomStringConvertible {
            case notAURL
            case plainHTTPOffLoopback(host: String)
            case hasQueryOrFragment
            case hasUserInfo
            case badPort(String)

            public var description: String {
                switch self {
                case .notAURL: "must be the site's address, as in \"https://example.herokuapp.com\""
                case let .plainHTTPOffLoopback(host): "must be https: plain http would send the secret readable to anyone between here and \(host) (http is accepted only to this machine: 127.0.0.1, ::1, localhost)"
                case .hasQueryOrFragment: "must be the site's address without a query (?) or fragment (#)"
                case .hasUserInfo: "must not hold a user name or password (user@): give the credential as api-secret or token"
                case let .badPort(port): "has a port that is not 1 to 65535: \"\(port)\""
                }
            }
        }

        /// `https://host[:port][/path]`, or `http://` to a loopback address.
        public static func site(parsing text: String) throws(URLProblem) -> Site {
            let https: Bool
            var rest: Substring
            if text.lowercased().hasPrefix("https://") {
                https = true
                rest = text.dropFirst("https://".count)
            } else if text.lowercased().hasPrefix("http://") {
                https = false
                rest = text.dropFirst("http://".count)
            } else {
                throw .notAURL
            }
            if rest.contains("?") || rest.contains("#") { throw .hasQueryOrFragment }
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let authority = rest[..<slash]
            var path = String(rest[slash...])
            while path.hasSuffix("/") { path.removeLast() }
            if authority.contains("@") { throw .hasUserInfo }
            var host = String(authority)
            var port = https ? 443 : 80
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { throw .notAURL }
                host = String(authority[authority.index(after: authority.startIndex)..<close])
                let after = authority[authority.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw .notAURL }
                    port = try Self.port(String(after.dropFirst()))
                }
            } else if let colon = authority.lastIndex(of: ":") {
                host = String(authority[..<colon])
                port = try Self.port(String(authority[authority.index(after: colon)...]))
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:".contains($0)) }) else { throw .notAURL }
            if !https, !isLoopback(host) { throw .plainHTTPOffLoopback(host: host) }
            return Site(https: https, host: host.lowercased(), port: port, path: path)
        }

        private static func port(_ text: String) throws(URLProblem) -> Int {
            guard let port = Int(text), (1...65535).contains(port), text.allSatisfy(\.isNumber) else { throw .badPort(text) }
            return port
        }

        /// 127.0.0.0/8, ::1 and localhost: a test server on this machine.
        static func isLoopback(_ host: String) -> Bool {
            let lowered = host.lowercased()
            if lowered == "localhost" || lowered == "::1" { return true }
            let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        }
    }

    /// The keys that hold a secret wherever they stand: in `[nightscout]` and in a follower's
    /// `[[device]]` (docs/network.md "Configuration").
    public static let secretKeys = ["api-secret", "token", "password"]

    /// Where this configuration holds a secret, as "[section] key" (empty: none): a file that
    /// does must not be readable by other users.
    public var secretsHeld: [String] {
        var held: [String] = []
        if let nightscout {
            if nightscout.apiSecret != nil { held.append("[nightscout] api-secret") }
            if nightscout.token != nil { held.append("[nightscout] token") }
        }
        for device in devices {
            for key in Self.secretKeys where device.options[key] != nil { held.append("[[device]] \(device.displayName) \(key)") }
        }
        return held
    }

    /// The refusal of a configuration file with permission bits `mode` (as stat(2) gives
    /// them), or nil when it may be used: one that holds a secret must give other users no
    /// access (0640 at most, as the package installs it root:vigil).
    public func secretFileProblem(mode: UInt32) -> String? {
        let held = secretsHeld
        guard !held.isEmpty, mode & 0o007 != 0 else { return nil }
        return "holds a secret (\(held.joined(separator: ", "))) and other users may read it (mode \(String(mode & 0o7777, radix: 8))): "
            + "`chmod o-rwx` it (the package installs it root:vigil 0640)"
    }
}
