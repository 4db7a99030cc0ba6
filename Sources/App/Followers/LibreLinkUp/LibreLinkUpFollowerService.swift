import Clocks
import Readings
import Web

/// Follows Abbott's LibreLinkUp, with the follower app's account (docs/followers.md
/// "LibreLinkUp"):
/// 1. `POST /llu/auth/login` {email, password} → `authTicket.token` and `user.id`, or a
///    redirect to the account's region (`{"redirect": true, "region": "eu"}` →
///    `https://api-eu.libreview.io`), status 2 for a wrong password, 4 for terms to accept,
///    429 for a locked account;
/// 2. `GET /llu/connections` → the people who share with the account; the configured
///    `patient` by name, or the first;
/// 3. `GET /llu/connections/{patientId}/graph` → the current reading and the last 12 hours.
/// Every request after the login carries the token and `Account-Id`, the SHA-256 hex of the
/// user id, which the service demands since version 4.11; `version` is the app's version the
/// service accepts now.
struct LibreLinkUpFollowerService: FollowerService {
    var server: HTTP.URL
    let email: String
    let password: String
    /// The connection to follow, by the patient's name ("First Last" or the first name); nil: the first.
    let patient: String?
    var token: String?
    var tokenExpires: WallClockTime?
    var accountID: String?
    var patientID: String?
    var asked = Request.login

    enum Request: Hashable, Sendable { case login, connections, graph }

    /// The app's product and version the service checks (docs/followers.md).
    static let product = "llu.android"
    static let version = "4.16.0"
    /// A token is renewed this long before the service said it expires.
    static let renewal = Duration.seconds(300)

    init(server: HTTP.URL, email: String, password: String, patient: String?) {
        self.server = server
        self.email = email
        self.password = password
        self.patient = patient
    }

    var name: String { "LibreLinkUp" }
    var stampRun: String { "librelinkup" }
    var defaultInterval: Duration { .seconds(60) }
    var uploadDelay: Duration { .seconds(15) }

    var headers: [(name: String, value: String)] {
        var fields = [(name: "Accept", value: "application/json"), (name: "product", value: Self.product),
                      (name: "version", value: Self.version), (name: "Cache-Control", value: "no-cache")]
        if let token { fields.append((name: "Authorization", value: "Bearer \(token)")) }
        if let accountID { fields.append((name: "Account-Id", value: accountID)) }
        return fields
    }

    mutating func nextRequest(since: WallClockTime?, now: WallClockTime) -> HTTP.ClientRequest {
        if let expires = tokenExpires, now >= expires - Self.renewal { endSession() }
        guard token != nil else {
            asked = .login
            let body = JSON.object([("email", .string(email)), ("password", .string(password))])
            return HTTP.ClientRequest(method: .post, url: server.appending("/llu/auth/login"),
                                      headers: headers + [(name: "Content-Type", value: "application/json")], body: Array(body.rendered.utf8))
        }
        guard let patientID else {
            asked = .connections
            return HTTP.ClientRequest(method: .get, url: server.appending("/llu/connections"), headers: headers)
        }
        asked = .graph
        return HTTP.ClientRequest(method: .get, url: server.appending("/llu/connections/\(FollowerQuery.encoded(patientID))/graph"),
                                  headers: headers)
    }

    mutating func endSession() {
        token = nil
        tokenExpires = nil
        patientID = nil
    }

    mutating func receive(_ response: HTTP.ClientResponse, now: WallClockTime) -> FollowerStep {
        if asked != .login, response.status == 401 {
            endSession()
            return .sessionEnded
        }
        guard response.status == 200 else {
            // A graph refused (404 for a patient no longer shared): choose again next time.
            if asked == .graph { patientID = nil }
            return .failed(response.unexpectedStatusLine)
        }
        let document: JSON
        switch response.json(asked == .login ? "the login's answer" : asked == .connections ? "the connections" : "the graph") {
        case let .failure(error): return .failed(error.description)
        case let .success(json): document = json
        }
        switch asked {
        case .login: return loggedIn(document)
        case .connections: return connections(document)
        case .graph:
            guard document["status"]?.integer == 0 else {
                patientID = nil
                return .failed("the graph's status is \(document["status"]?.integer.map(String.init) ?? "missing")")
            }
            switch LibreLinkUpGraphDocument.decode(document) {
            case let .failure(error): return .failed(error.description)
            case let .success(graph): return .glucose(graph.glucose, ignored: graph.ignored)
            }
        }
    }

    mutating func loggedIn(_ document: JSON) -> FollowerStep {
        let data = document["data"]
        switch document["status"]?.integer {
        case 0?:
            if data?["redirect"]?.bool == true {
                guard let region = data?["region"]?.string, Self.isRegion(region) else {
                    return .failed("the login redirects to a region that is not a plain name")
                }
                server = HTTP.URL(scheme: .https, host: "api-\(region.lowercased()).libreview.io")
                return .advanced
            }
            guard let ticket = data?["authTicket"], let token = ticket["token"]?.string, !token.isEmpty,
                  token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), let user = data?["user"]?["id"]?.string, !user.isEmpty
            else { return .failed("the login's answer has no token or user id") }
            self.token = token
            tokenExpires = ticket["expires"]?.integer.map { WallClockTime(secondsSinceEpoch: min(max($0, 0), 1 << 40)) }
            accountID = FollowerQuery.sha256Hex(user)
            return .advanced
        case 2?:
            return .refused("LibreLinkUp refused the email or password")
        case 4?:
            let step = data?["step"]?["type"]?.string.map(FollowerQuery.printable) ?? "document"
            let what = step == "tou" ? "terms of use" : step == "pp" ? "privacy policy" : "\"\(step)\""
            return .refused("LibreLinkUp asks the account to accept its \(what) first: log in to the LibreLinkUp app with this account and accept")
        case 429?:
            let lockout = data?["data"]?["lockout"]?.integer.map { Duration.seconds(min(max($0, 60), 86_400)) }
            return .locked("LibreLinkUp locked the account after failed logins", retryAfter: lockout)
        case let status?:
            return .failed("the login's status is \(status)")
        case nil:
            return .failed("the login's answer has no status")
        }
    }

    mutating func connections(_ document: JSON) -> FollowerStep {
        guard document["status"]?.integer == 0, let list = document["data"]?.array else {
            return .failed("the connections are not a list")
        }
        let people = list.compactMap { entry -> (id: String, name: String, first: String)? in
            guard let id = entry["patientId"]?.string, !id.isEmpty else { return nil }
            let first = entry["firstName"]?.string ?? ""
            let last = entry["lastName"]?.string ?? ""
            return (id, "\(first) \(last)".trimmingSpaces, first)
        }
        guard !people.isEmpty else { return .refused("nobody shares their glucose with this LibreLinkUp account") }
        guard let patient else {
            patientID = people[0].id
            return .advanced
        }
        let wanted = patient.lowercased()
        guard let chosen = people.first(where: { $0.name.lowercased() == wanted || $0.first.lowercased() == wanted }) else {
            let names = people.map { FollowerQuery.printable($0.name) }.joined(separator: ", ")
            return .refused("no connection is named \"\(FollowerQuery.printable(patient))\" (this account follows: \(names))")
        }
        patientID = chosen.id
        return .advanced
    }

    /// A region is a short lowercase name (`eu`, `eu2`, `us`, `ap`): anything else would reshape the host.
    static func isRegion(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) }
    }
}

extension String {
    var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " }
        return String(String.UnicodeScalarView(scalars.reversed().drop { $0 == " " }.reversed()))
    }
}

/// The graph (docs/followers.md "LibreLinkUp"): `data.connection.glucoseMeasurement`, the
/// current reading with its `TrendArrow`, and `data.graphData`, the history without arrows.
/// The value is `ValueInMgPerDl`; without it, `Value` in the unit `GlucoseUnits` says (0 mmol/L,
/// 1 mg/dL). The time is `FactoryTimestamp`, in UTC.
struct LibreLinkUpGraphDocument: Hashable, Sendable {
    var glucose: [FollowedGlucose] = []
    var ignored = 0

    static func decode(_ document: JSON) -> Result<LibreLinkUpGraphDocument, FollowerDocumentError> {
        guard let data = document["data"], let connection = data["connection"] else {
            return .failure(FollowerDocumentError("the graph has no connection"))
        }
        var decoded = LibreLinkUpGraphDocument()
        var items = data["graphData"]?.array ?? []
        if let current = connection["glucoseMeasurement"], !current.isNull { items.append(current) }
        for item in items {
            if let value = glucose(item) { decoded.glucose.append(value) } else { decoded.ignored += 1 }
        }
        return .success(decoded)
    }

    static func glucose(_ item: JSON) -> FollowedGlucose? {
        guard let measured = item["FactoryTimestamp"]?.string.flatMap(LibreLinkUpTimestamp.parse) else { return nil }
        let concentration: GlucoseConcentration
        if let mgdl = item["ValueInMgPerDl"]?.number {
            concentration = GlucoseConcentration(milligramsPerDeciliter: mgdl)
        } else if let value = item["Value"]?.number, let unit = item["GlucoseUnits"]?.integer, unit == 0 || unit == 1 {
            concentration = unit == 0 ? GlucoseConcentration(millimolesPerLiter: value) : GlucoseConcentration(milligramsPerDeciliter: value)
        } else {
            return nil
        }
        guard NightscoutEntriesDocument.plausible.contains(concentration.milligramsPerDeciliter) else { return nil }
        return FollowedGlucose(measured: measured, concentration: concentration,
                               trend: item["TrendArrow"]?.integer.flatMap(TrendDirection.init(libreLinkUpArrow:)))
    }
}
