import Web
import Clocks

/// The page and the Nightscout API on the home network, sans-IO (docs/web.md): an
/// `HTTP.Server` and what answers its requests. The supervisor owns one when `[web]` is
/// configured and feeds it the sockets' bytes; it decides every answer, and the platform side
/// only moves bytes.
public struct Website: Sendable {
    public struct Configuration: Sendable {
        /// The access token (docs/web.md "Access"). Never logged.
        public var token: String
        /// Served over TLS: the cookie gets `Secure`, and a POST's `Origin` must be `https://`.
        public var isHTTPS: Bool
        /// The HTTP server's limits (docs/http.md "Limits, and why").
        public var server: HTTP.Server.Configuration

        public init(token: String, isHTTPS: Bool = false) {
            self.token = token
            self.isHTTPS = isHTTPS
            server = HTTP.Server.Configuration()
        }
    }

    public let configuration: Configuration
    public internal(set) var server: HTTP.Server

    public init(configuration: Configuration) {
        self.configuration = configuration
        server = HTTP.Server(configuration: configuration.server)
    }

    /// The `Date` field from the wall clock, only once the clock is believable: a board
    /// without a real-time clock says 1970 until it is set (docs/http.md "Time").
    mutating func setDate(wallNow: WallClockTime, believableFrom earliest: WallClockTime) {
        server.date = wallNow >= earliest ? HTTP.imfFixdate(wallNow) : nil
    }

    // MARK: Answers

    /// Every answer's security fields (docs/web.md "Access"): nothing cached, no type
    /// sniffing, no referrer, never framed, and only the page's own script and style.
    static let securityHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    ]

    static func secured(_ response: HTTP.Response) -> HTTP.Response {
        var response = response
        for (name, value) in securityHeaders { response.headers.set(name, value) }
        return response
    }

    /// `{"error":"..."}` with `status`.
    static func error(_ status: HTTP.Status, _ message: String) -> HTTP.Response {
        .json(JSON.object([("error", .string(message))]).rendered, status: status)
    }

    /// `GET /health`, open to anyone: whether a fault stands, and which, never glucose.
    static func health(faults: [String]) -> HTTP.Response {
        if faults.isEmpty { return .json(JSON.object([("status", .string("ok"))]).rendered) }
        return .json(JSON.object([("status", .string("fault")), ("faults", .array(faults.map(JSON.string)))]).rendered,
                     status: .serviceUnavailable)
    }
}
