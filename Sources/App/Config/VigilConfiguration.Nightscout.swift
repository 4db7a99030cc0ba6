import Web

extension VigilConfiguration {
    /// `[nightscout]`: upload to a Nightscout site (docs/nightscout-upload.md, docs/network.md
    /// "Configuration"). Absent: nothing is uploaded and nothing is queued.
    ///
    /// Holds a secret: its description and mirror name the site and which credential is
    /// configured, never the credential.
    public struct Nightscout: Equatable, Sendable, CustomStringConvertible, CustomReflectable {
        /// `url`: the site; its path ("/" or "/ns") is where `/api/v1` goes.
        public var url: HTTP.URL
        /// `api-secret`: the site's API_SECRET (sent only as its SHA-1).
        public var apiSecret: String?
        /// `token`: an access token whose roles may create entries, treatments and device status.
        public var token: String?

        public init(url: HTTP.URL, apiSecret: String? = nil, token: String? = nil) {
            self.url = url
            self.apiSecret = apiSecret
            self.token = token
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

        /// `https://host[:port][/path]`, or `http://` to this machine; the reason otherwise.
        public static func site(parsing text: String) throws(URLProblem) -> HTTP.URL {
            let url: HTTP.URL
            do { url = try HTTP.URL(parsing: text) } catch {
                throw URLProblem(description: "must be the site's address, as in \"https://example.herokuapp.com\": \(error)")
            }
            if url.target.contains("?") { throw URLProblem(description: "must be the site's address without a query (?...)") }
            if url.scheme == .http, !url.isLoopback {
                throw URLProblem(description: "must be https: plain http would carry the secret readable to anyone between here and "
                    + "\(url.host) (http is accepted only to this machine: 127.0.0.1, ::1, localhost)")
            }
            var site = url
            while site.target.count > 1, site.target.hasSuffix("/") { site.target.removeLast() }
            return site
        }

        /// Why `url` is not a site Vigil uploads to.
        public struct URLProblem: Error, Equatable, CustomStringConvertible {
            public var description: String
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
            let keys: [String] = switch device.follower {
            case let .nightscout(_, token, apiSecret)?: (apiSecret != nil ? ["api-secret"] : []) + (token != nil ? ["token"] : [])
            case .dexcomShare?, .libreLinkUp?: ["password"]
            case nil: Self.secretKeys.filter { device.options[$0] != nil }
            }
            for key in keys { held.append("[[device]] \(device.displayName) \(key)") }
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
