import Web

/// Who may read the page and act on the alarms (docs/web.md "Access"): the token, carried by the
/// `vigil_token` cookie or `Authorization: Bearer`; and a POST only from the page's own origin.
extension Website {
    static let cookieName = "vigil_token"
    /// A year: a caregiver's phone stays signed in (docs/web.md "Access").
    static let cookieMaxAge = 31_536_000

    /// How a request proved it may read, if it did.
    enum Credential: Equatable, Sendable {
        case cookie
        case bearer
    }

    /// The credential `request` carries that matches the token, compared in constant time
    /// (`Nightscout.Credentials.constantTimeEqual` on SHA-256 digests): neither a wrong guess's
    /// length nor its matching prefix shows in the time taken.
    func credential(of request: HTTP.Request) -> Credential? {
        if let bearer = Nightscout.Credentials.bearer(request.headers["Authorization"]), isToken(bearer) { return .bearer }
        for value in Self.cookies(named: Self.cookieName, in: request.headers) where isToken(value) { return .cookie }
        return nil
    }

    /// Whether `presented` is the token.
    func isToken(_ presented: String) -> Bool {
        Nightscout.Credentials.constantTimeEqual(Nightscout.Credentials.digest(Array(presented.utf8)), tokenDigest)
    }

    /// Every value of cookie `name` in the `Cookie` fields (RFC 6265 §4.2.1: `name=value` pairs
    /// separated by `; `; a browser may send more than one field).
    static func cookies(named name: String, in headers: HTTP.Headers) -> [String] {
        headers.values(for: "Cookie").flatMap { field in
            field.split(separator: ";").compactMap { pair -> String? in
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { return nil }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
    }

    /// Whether a POST may act (docs/web.md "Access"): its `Origin` is this server's own
    /// (`http://` or `https://` + its `Host`), or it has no `Origin` and carries the token as
    /// `Authorization: Bearer`, which a browser cannot be made to send to another site. A cookie
    /// alone never suffices: it is what a cross-site form would carry.
    func isSameOrigin(_ request: HTTP.Request, credential: Credential?) -> Bool {
        let origins = request.headers.values(for: "Origin")
        guard !origins.isEmpty else { return credential == .bearer }
        guard origins.count == 1, let host = request.headers["Host"] else { return false }
        return origins[0] == (configuration.isHTTPS ? "https://" : "http://") + host
    }

    /// `Set-Cookie` holding the token (RFC 6265 §4.1): script cannot read it, no other site's
    /// request carries it, and over HTTPS it never travels in clear.
    func signInCookie() -> String {
        "\(Self.cookieName)=\(configuration.token); HttpOnly; SameSite=Strict; Path=/; Max-Age=\(Self.cookieMaxAge)"
            + (configuration.isHTTPS ? "; Secure" : "")
    }

    /// `Set-Cookie` that removes it (RFC 6265 §5.3: an expiry in the past, `Max-Age=0`).
    func signOutCookie() -> String {
        "\(Self.cookieName)=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0" + (configuration.isHTTPS ? "; Secure" : "")
    }

    /// `303 See Other` to `/` (RFC 9110 §15.4.4: the answer to a POST, or a link that signs in,
    /// is fetched with GET, so a reload never repeats it and the token leaves the address bar).
    static func seeOther(_ location: String = "/", cookie: String? = nil) -> HTTP.Response {
        var response = HTTP.Response(status: .seeOther, headers: ["Location": location])
        if let cookie { response.headers.append("Set-Cookie", cookie) }
        return response
    }

    /// The form of a POST (`application/x-www-form-urlencoded`, WHATWG URL §5.1), read by the
    /// same parser as a query; nil when it is not a form or does not parse.
    static func form(of request: HTTP.Request) -> HTTP.Query? {
        guard let type = request.headers["Content-Type"],
              type.split(separator: ";").first.map({ $0.filter { $0 != " " && $0 != "\t" }.lowercased() }) == "application/x-www-form-urlencoded"
        else { return nil }
        if request.body.isEmpty { return HTTP.Query() }
        return try? HTTP.RequestTarget(parsing: Array("/?".utf8) + request.body).query
    }
}
