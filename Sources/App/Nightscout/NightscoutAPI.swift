extension Nightscout {
    /// The read API: one request and a snapshot in, one response out.
    public struct API: Sendable {
        public struct Configuration: Sendable {
            public var credentials: Credentials
            /// Nightscout's `AUTH_DEFAULT_ROLES=readable`: everything can be read without a
            /// credential. Off by default (`denied`): only `status.json` is open then.
            public var readableWithoutAuthentication = false
            /// The most documents one answer holds, whatever `count` asks (and `count=0`, "no
            /// limit" in Nightscout). 1,000 entries render to about 250 KB in a few
            /// milliseconds on a Pi's loop turn, and are 3.5 days of 5-minute CGM readings
            /// (docs/nightscout-api.md "Limits").
            public var maximumCount = 1000
            /// `name` and `settings.customTitle` in `status.json`.
            public var name = "Vigil"
            /// `version` in `status.json`.
            public var version = VigilVersion.string

            public init(credentials: Credentials) { self.credentials = credentials }
        }

        /// Each endpoint's `count` when the request gives none: 10 entries
        /// (`lib/api/entries/index.js`), 10 device statuses (`lib/api/devicestatus/index.js`),
        /// one pebble bg (`lib/server/pebble.js`); treatments have no default (all of the window).
        static let defaultEntries = 10, defaultDeviceStatuses = 10, defaultPebbleBGs = 1

        public let configuration: Configuration

        public init(configuration: Configuration) { self.configuration = configuration }

        /// Whether `path` is this API's to answer (`/api/v1/…` and `/pebble`), for a server that
        /// also serves other pages: the rest of the paths are not Nightscout's.
        public static func answers(path: String) -> Bool {
            path.hasPrefix("/api/v1/") || path == "/api/v1" || path == "/pebble" || path == "/pebble/"
        }

        /// The answer to `request`. `snapshot` is called at most once, and only for a request
        /// that is authorized and well formed, so a refused or malformed request costs nothing
        /// of the appliance's.
        public func respond(to request: Request, snapshot: () -> Snapshot) -> Response {
            do throws(Failure) {
                return try answer(request, snapshot: snapshot)
            } catch {
                return .error(error)
            }
        }

        private func answer(_ request: Request, snapshot: () -> Snapshot) throws(Failure) -> Response {
            guard request.method == "GET" || request.method == "HEAD" else {
                throw Failure(status: 405, message: "Method Not Allowed", description: "this Nightscout API only reads (GET)")
            }
            let route = try Route(path: request.path)
            let authentication = configuration.credentials.authentication(of: request)
            if case .status = route {} else if authentication == nil && !configuration.readableWithoutAuthentication {
                throw .unauthorized
            }
            switch route {
            case let .status(format):
                switch format {
                case .json: return .json(Status.document(snapshot(), configuration: configuration, authentication: authentication))
                case .text: return .text("STATUS OK")
                case .html: return .text("<h1>STATUS OK</h1>", type: "text/html; charset=utf-8")
                }
            case let .entries(selection):
                var query = try Query(request, collection: .entries)
                var defaultCount = Self.defaultEntries
                switch selection {
                case .all: break
                case .current:
                    // Nightscout's `/entries/current` lists one entry whatever the query says.
                    query = try Query(Request(method: "GET", path: request.path), collection: .entries)
                    query.count = .atMost(1)
                case let .type(type):
                    // `prepReqModel`: the path's type replaces any `find[type]`.
                    query.conditions.removeAll { $0.field == "type" }
                    query.conditions.append(.init(field: "type", op: .eq, operand: .text(type)))
                case let .id(id):
                    query.conditions = [.init(field: "_id", op: .eq, operand: .text(id))]
                    defaultCount = 1
                }
                let snapshot = snapshot()
                return .json(.array(query.select(Entries.documents(snapshot), at: snapshot.now, limit: limit(query.count, default: defaultCount)).map(JSON.object)))
            case .treatments:
                let query = try Query(request, collection: .treatments)
                let snapshot = snapshot()
                return .json(.array(query.select(Treatments.documents(snapshot), at: snapshot.now, limit: limit(query.count, default: nil)).map(JSON.object)))
            case .deviceStatus:
                let query = try Query(request, collection: .deviceStatus)
                let snapshot = snapshot()
                return .json(.array(query.select(DeviceStatuses.documents(snapshot), at: snapshot.now,
                                                 limit: limit(query.count, default: Self.defaultDeviceStatuses)).map(JSON.object)))
            case .pebble:
                let count = try Self.pebbleCount(request.parameter("count"))
                let snapshot = snapshot()
                let mmol = (request.parameter("units") ?? (snapshot.units == .millimolesPerLiter ? "mmol" : "mg/dl")) == "mmol"
                return .json(Pebble.document(entries: Entries.documents(snapshot), deviceStatuses: DeviceStatuses.documents(snapshot),
                                             count: min(count, configuration.maximumCount), mmol: mmol, now: snapshot.now))
            }
        }

        /// The number of documents to send: the count asked for, the endpoint's default, never
        /// more than `maximumCount`.
        func limit(_ count: Query.Count, default defaultCount: Int?) -> Int {
            let asked: Int? = switch count {
            case .unspecified: defaultCount
            case .unlimited: nil
            case let .atMost(n): n
            }
            return min(asked ?? configuration.maximumCount, configuration.maximumCount)
        }

        /// The pebble's `count`: `parseInt(count) || 1` in Nightscout, a whole number here.
        static func pebbleCount(_ value: String?) throws(Failure) -> Int {
            switch try value.map(Query.count) ?? .unspecified {
            case .unspecified, .unlimited: defaultPebbleBGs
            case let .atMost(n): n
            }
        }
    }
}
