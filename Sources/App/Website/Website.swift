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
        /// The unit people read glucose in (`[alarms] units`): `/state.json`'s `units` and the
        /// Nightscout API's `settings.units`.
        public var units: VigilConfiguration.Alarms.Units = .milligramsPerDeciliter
        /// Each configured device and its transmitter type, for `devices[]`.
        public var devices: [StatusBoard.ConfiguredDevice] = []

        public init(token: String, isHTTPS: Bool = false) {
            self.token = token
            self.isHTTPS = isHTTPS
            server = HTTP.Server.Configuration()
        }
    }

    public let configuration: Configuration
    public internal(set) var server: HTTP.Server
    /// SHA-256 of the token: what a presented one is compared with (`isToken`).
    let tokenDigest: [UInt8]
    /// The Nightscout read API on the same server: the token is its API secret (the
    /// `api-secret` header carries its SHA-1) and its `token=` (docs/web.md "Access").
    let nightscout: Nightscout.API
    /// What each device last said (battery, sensor, last values), as `vigil status` keeps it.
    public internal(set) var board: StatusBoard
    /// Recent glucose for the chart and the Nightscout API.
    var recent = Recent()
    /// The appliance's events of this turn with the clocks they came at, taken in at the end
    /// of the turn (`absorb`): nothing is done for the page on the alarm path.
    var pendingEvents: [(event: ApplianceEvent, at: ClockReadings)] = []
    /// Something the page shows changed since the last `state` event.
    var stateChanged = true
    /// The last `state` event's data, for a stream that could not take it then.
    var lastState: String?
    /// The state document rendered at these clock readings, for every other request of the
    /// same turn: twenty browsers asking at once cost one rendering, not twenty. Cleared by
    /// whatever can change what it shows (`Supervisor.report`, an alarm action, `absorb`).
    var renderedState: (at: ClockReadings, text: String)?
    /// Streams owed `lastState`: their previous event was not taken yet (docs/web.md "Live
    /// updates": at most one queued while the browser has not taken the one before).
    var owedState: Set<HTTP.Server.ConnectionID> = []
    /// Streams opened since the state last changed: their first event is already the newest.
    var freshStreams: Set<HTTP.Server.ConnectionID> = []
    /// `GET /report` requests waiting for the report being made; nil while none is.
    var reportWaiting: [HTTP.Server.ConnectionID]?

    public init(configuration: Configuration) {
        self.configuration = configuration
        server = HTTP.Server(configuration: configuration.server)
        tokenDigest = Nightscout.Credentials.digest(Array(configuration.token.utf8))
        // A token the configuration accepted always passes the API's rules (at least 16
        // characters, no space); one that does not leaves only `status.json` open.
        let credentials = (try? Nightscout.Credentials(apiSecret: configuration.token, token: configuration.token)) ?? .none
        nightscout = Nightscout.API(configuration: Nightscout.API.Configuration(credentials: credentials))
        board = StatusBoard(version: VigilVersion.string, startedAt: .zero, devices: configuration.devices)
    }

    /// The board counts uptime from the supervisor's start.
    mutating func started(at now: MonotonicInstant) {
        board = StatusBoard(version: VigilVersion.string, startedAt: now, devices: configuration.devices)
    }

    /// The turn's events into the board and the glucose window.
    mutating func absorb() {
        guard !pendingEvents.isEmpty else { return }
        for (event, at) in pendingEvents {
            board.observe(event, at: at.monotonic)
            recent.add(event.recordedReadings(monotonicNow: at.monotonic, wallNow: at.wall), wallNow: at.wall)
        }
        pendingEvents.removeAll(keepingCapacity: true)
        stateChanged = true
        renderedState = nil
        freshStreams.removeAll()
    }

    /// The `Date` field from the wall clock, only once the clock is believable: a board
    /// without a real-time clock says 1970 until it is set (docs/http.md "Time").
    mutating func setDate(wallNow: WallClockTime, believableFrom earliest: WallClockTime) {
        server.date = wallNow >= earliest ? HTTP.imfFixdate(wallNow) : nil
    }

    // MARK: Answers

    /// Every answer's security fields (docs/web.md "Access"): nothing cached, no type
    /// sniffing, no referrer to other sites, never framed, and only the page's own script and
    /// style. `same-origin`, not `no-referrer`: under `no-referrer` a browser's form POST says
    /// `Origin: null` (Fetch, "serializing a request origin"), and the sign-in would fail the
    /// same-origin check.
    static let securityHeaders: [(String, String)] = [
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("X-Frame-Options", "DENY"),
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    ]

    static func secured(_ response: HTTP.Response) -> HTTP.Response {
        var response = response
        for (name, value) in securityHeaders where name != "Content-Security-Policy" || response.headers["Content-Security-Policy"] == nil {
            response.headers.set(name, value)
        }
        return response
    }

    /// The clinician's report's policy: the same document `vigil report` writes, whose style is
    /// inline, and which has no script at all, so none is allowed.
    static let reportPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

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
