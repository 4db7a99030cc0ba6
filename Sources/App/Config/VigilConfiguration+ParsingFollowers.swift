import Web

extension SchemaReader {
    /// The keys of each follower type beside the shared ones (docs/network.md "Configuration").
    static let followerKeys: [String: [String]] = [
        "nightscout": ["url", "token", "api-secret"],
        "dexcom-share": ["username", "password", "server"],
        "librelinkup": ["email", "password", "server", "patient"],
    ]

    /// LibreLinkUp's global server; it redirects an account to its region's.
    static let libreLinkUpServer = HTTP.URL(scheme: .https, host: "api.libreview.io")

    /// A follower `[[device]]`: its service's keys taken out of `options` and read, each
    /// missing secret and bad URL an error at its line. The Bluetooth keys have no meaning for
    /// a device that is a server.
    mutating func readFollower(_ device: inout VigilConfiguration.Device, _ table: TOML.Table, at position: TOML.Position) {
        let section = "[[device]]"
        for key in ["name", "address", "pair"] {
            guard let value = table[key] else { continue }
            fail(.invalidValue(key: key, section: section,
                               reason: "a \(device.type) device follows a server over the internet: it has no Bluetooth \(key)"),
                 at: value.position)
        }
        var values: [String: (text: String, value: TOML.Value)] = [:]
        for key in Self.followerKeys[device.type] ?? [] {
            device.options[key] = nil
            device.optionKeyPositions[key] = nil
            if let found = string(key, in: table, section) { values[key] = found }
        }
        /// A required key, present and not empty.
        func required(_ key: String, _ what: String) -> String? {
            guard let found = values[key] else {
                fail(.missingKey(key: key, section: section + " of type \(device.type) (\(what))"), at: position)
                return nil
            }
            guard !found.text.isEmpty else {
                fail(.invalidValue(key: key, section: section, reason: "\(what) must not be empty"), at: found.value.position)
                return nil
            }
            return found.text
        }
        func optional(_ key: String) -> String? {
            values[key].flatMap { $0.text.isEmpty ? nil : $0.text }
        }
        switch device.type {
        case "nightscout":
            let site = required("url", "the site's address").flatMap { url($0, key: "url", at: values["url"]!.value.position) }
            let token = optional("token")
            let secret = optional("api-secret")
            if token != nil, secret != nil, let value = values["api-secret"]?.value {
                fail(.invalidValue(key: "api-secret", section: section, reason: "give token or api-secret, not both"), at: value.position)
            }
            if let secret, secret.count < 12, let value = values["api-secret"]?.value {
                fail(.invalidValue(key: "api-secret", section: section,
                                   reason: "a Nightscout API secret is at least 12 characters (the site's API_SECRET)"), at: value.position)
            }
            if let site { device.follower = .nightscout(site: site, token: token, apiSecret: secret) }
        case "dexcom-share":
            let username = required("username", "the Dexcom account's user name, the one the Dexcom app logs in with")
            let password = required("password", "the Dexcom account's password")
            var server = DexcomShareServer.unitedStates
            if let (text, value) = values["server"] {
                if let named = DexcomShareServer(configured: text) {
                    server = named
                } else if text.contains("://") {
                    if let address = url(text, key: "server", at: value.position) { server = .custom(address) }
                } else {
                    let hint = Spelling.closest(to: text, among: DexcomShareServer.names).map { " (did you mean \(TOML.quoted($0))?)" } ?? ""
                    fail(.invalidValue(key: "server", section: section,
                                       reason: "\(TOML.quoted(text)) is not one of \(DexcomShareServer.names.joined(separator: ", ")) or an https URL\(hint)"),
                         at: value.position)
                }
            }
            if let username, let password { device.follower = .dexcomShare(username: username, password: password, server: server) }
        default:
            let email = required("email", "the LibreLinkUp account's email, the follower app's")
            let password = required("password", "the LibreLinkUp account's password")
            var server = Self.libreLinkUpServer
            if let (text, value) = values["server"], !text.isEmpty, let address = url(text, key: "server", at: value.position) { server = address }
            if let email, let password {
                device.follower = .libreLinkUp(email: email, password: password, server: server, patient: optional("patient"))
            }
        }
    }

    /// An https URL, or http to this machine only: a password or token must not cross a
    /// network in the clear.
    mutating func url(_ text: String, key: String, at position: TOML.Position) -> HTTP.URL? {
        do throws(HTTP.URLError) {
            let url = try HTTP.URL(parsing: text)
            guard url.scheme == .https || url.isLoopback else {
                fail(.invalidValue(key: key, section: "[[device]]", reason: "\(TOML.quoted(text)) must be https (http only to this machine)"),
                     at: position)
                return nil
            }
            return url
        } catch {
            fail(.invalidValue(key: key, section: "[[device]]", reason: "\(TOML.quoted(text)): \(error)"), at: position)
            return nil
        }
    }
}
