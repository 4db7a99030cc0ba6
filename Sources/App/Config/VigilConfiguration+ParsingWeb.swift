extension VigilConfiguration {
    /// The `[web]` keys, in the order the packaged file lists them.
    public static let webKeys = ["listen", "token-file", "certificate", "key"]
}

extension SchemaReader {
    /// `[web]`: where the page listens and the files it needs. The files themselves are read
    /// and checked by the executable (docs/web.md "Configuration"); here only their names.
    mutating func readWeb(_ table: TOML.Table, at sectionPosition: TOML.Position) -> VigilConfiguration.Web {
        let section = "[web]"
        var web = VigilConfiguration.Web(at: sectionPosition)
        if let (text, value) = string("listen", in: table, section) {
            do throws(VigilConfiguration.Web.ListenAddress.ParseError) {
                web.listen = try VigilConfiguration.Web.ListenAddress(parsing: text)
            } catch {
                fail(.invalidValue(key: "listen", section: section, reason: error.description), at: value.position)
            }
        }
        if let (text, value) = string("token-file", in: table, section) {
            if text.isEmpty {
                fail(.invalidValue(key: "token-file", section: section,
                                   reason: "must name the token's file (`vigil web token` makes one); without [web] nothing is served"),
                     at: value.position)
            } else {
                web.tokenFile = text
                web.tokenFilePosition = value.position
            }
        }
        let certificate = string("certificate", in: table, section).flatMap { $0.0.isEmpty ? nil : $0 }
        let key = string("key", in: table, section).flatMap { $0.0.isEmpty ? nil : $0 }
        switch (certificate, key) {
        case let ((certificatePath, certificateValue)?, (keyPath, keyValue)?):
            web.certificate = certificatePath
            web.certificatePosition = certificateValue.position
            web.key = keyPath
            web.keyPosition = keyValue.position
        case let ((_, value)?, nil):
            fail(.invalidValue(key: "certificate", section: section, reason: "HTTPS needs the certificate's private key too: add `key`"),
                 at: value.position)
        case let (nil, (_, value)?):
            fail(.invalidValue(key: "key", section: section, reason: "HTTPS needs the certificate that goes with the key too: add `certificate`"),
                 at: value.position)
        case (nil, nil):
            break
        }
        return web
    }
}
