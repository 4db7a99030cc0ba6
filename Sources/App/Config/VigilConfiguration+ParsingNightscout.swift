import Web

extension VigilConfiguration {
    /// The `[nightscout]` keys, in the order the packaged file lists them.
    public static let nightscoutKeys = ["url", "api-secret", "token"]
}

extension SchemaReader {
    /// `[nightscout]`: the site and exactly one credential. No error holds a secret's value.
    mutating func readNightscout(_ table: TOML.Table, at sectionPosition: TOML.Position) -> VigilConfiguration.Nightscout? {
        let section = "[nightscout]"
        let errorsBefore = errors.count
        var site: HTTP.URL?
        if let (text, value) = string("url", in: table, section) {
            do throws(VigilConfiguration.Nightscout.URLProblem) {
                site = try VigilConfiguration.Nightscout.site(parsing: text)
            } catch {
                fail(.invalidValue(key: "url", section: section, reason: error.description), at: value.position)
            }
        } else if table["url"] == nil {
            fail(.missingKey(key: "url", section: section), at: sectionPosition)
        }
        let secret = credential("api-secret", in: table, section)
        let token = credential("token", in: table, section)
        switch (secret, token) {
        case (_?, let (_, value)?):
            fail(.invalidValue(key: "token", section: section,
                               reason: "give either api-secret or token, not both: Vigil would not know which the site expects"),
                 at: value.position)
        case (nil, nil) where table["api-secret"] == nil && table["token"] == nil:
            fail(.invalidValue(key: "api-secret", section: section,
                               reason: "the site needs a credential to accept uploads: add api-secret (the site's API_SECRET) "
                                   + "or token (an access token allowed to create entries, treatments and device status)"),
                 at: sectionPosition)
        default:
            break
        }
        guard errors.count == errorsBefore, let site else { return nil }
        return VigilConfiguration.Nightscout(url: site, apiSecret: secret?.0, token: token?.0)
    }

    /// A credential: at least 12 printable ASCII characters without spaces, as Nightscout
    /// requires of API_SECRET (`lib/server/env.js`) and as a header or a query carries it.
    private mutating func credential(_ key: String, in table: TOML.Table, _ section: String) -> (String, TOML.Value)? {
        guard let (text, value) = string(key, in: table, section) else { return nil }
        let name = key == "token" ? "the token" : "the API secret"
        if text.isEmpty {
            fail(.invalidValue(key: key, section: section, reason: "\(name) is empty"), at: value.position)
            return nil
        }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            fail(.invalidValue(key: key, section: section, reason: "\(name) must be printable ASCII without spaces"), at: value.position)
            return nil
        }
        guard text.utf8.count >= Nightscout.Credentials.minimumLength else {
            fail(.invalidValue(key: key, section: section,
                               reason: "\(name) has \(text.utf8.count) characters; Nightscout needs at least \(Nightscout.Credentials.minimumLength)"),
                 at: value.position)
            return nil
        }
        return (text, value)
    }
}
