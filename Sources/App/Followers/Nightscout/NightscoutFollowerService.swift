import Clocks
import Readings
import Web

/// Follows a Nightscout site's sensor glucose entries (docs/followers.md "Nightscout"):
/// `GET /api/v1/entries/sgv.json?count=N&find[date][$gt]=MS`, newest first, authenticated by
/// an access token (`token=`) or the API secret's SHA-1 (`api-secret`), or neither for a site
/// open to readers. There is no session: every request is a fetch.
struct NightscoutFollowerService: FollowerService {
    let site: HTTP.URL
    let token: String?
    /// The SHA-1 hex of the API secret, as Nightscout compares it; the secret is not kept.
    let apiSecretSHA1: String?

    init(site: HTTP.URL, token: String?, apiSecret: String?) {
        self.site = site
        self.token = token
        self.apiSecretSHA1 = apiSecret.map(FollowerQuery.sha1Hex)
    }

    var name: String { "Nightscout" }
    var stampRun: String { "nightscout" }
    var defaultInterval: Duration { .seconds(300) }
    var uploadDelay: Duration { .seconds(30) }

    /// Nightscout answers `count` entries at most (its default is 10); Vigil's own API caps a
    /// query at 1,000.
    static let maximumCount = 1000

    mutating func nextRequest(since: WallClockTime?, now: WallClockTime) -> HTTP.ClientRequest {
        let after = since ?? (now - Follower.initialWindow)
        let window = max(now - after, .seconds(60))
        // A reading a minute at most (a Libre uploader), and two to spare.
        let count = min(Self.maximumCount, Int(min(window, Follower.maximumWindow).components.seconds / 60) + 2)
        var items = [("count", String(count)), ("find[date][$gt]", String(after.millisecondsSinceEpoch))]
        if let token { items.append(("token", token)) }
        var url = site.appending("/api/v1/entries/sgv.json")
        url.target += "?" + FollowerQuery.query(items)
        var headers = [(name: "Accept", value: "application/json")]
        if let apiSecretSHA1 { headers.append((name: "api-secret", value: apiSecretSHA1)) }
        return HTTP.ClientRequest(method: .get, url: url, headers: headers)
    }

    mutating func receive(_ response: HTTP.ClientResponse, now: WallClockTime) -> FollowerStep {
        switch response.status {
        case 200:
            switch response.json("the entries") {
            case let .failure(error): return .failed(error.description)
            case let .success(document):
                switch NightscoutEntriesDocument.decode(document) {
                case let .failure(error): return .failed(error.description)
                case let .success(entries): return .glucose(entries.glucose, ignored: entries.ignored)
                }
            }
        case 401, 403:
            let what = token != nil ? "token" : apiSecretSHA1 != nil ? "API secret" : "reading without a token (set token or api-secret)"
            return .refused("the site refused the \(what) (HTTP \(response.status))")
        default:
            return .failed(response.unexpectedStatusLine)
        }
    }
}

/// The entries array Nightscout answers (docs/followers.md "Nightscout"): each entry's `sgv`
/// in mg/dL (Nightscout keeps sgv in mg/dL whatever the site displays), `date` in epoch
/// milliseconds, `direction` by name or else `trend` by number. Entries that are not sensor
/// glucose Vigil can use are counted, not taken: another type, no date, or an `sgv` below 39
/// (Dexcom's codes for a sensor state, not a value) or above 1,000.
struct NightscoutEntriesDocument: Hashable, Sendable {
    var glucose: [FollowedGlucose] = []
    var ignored = 0

    static let plausible = 39.0...1000.0

    static func decode(_ document: JSON) -> Result<NightscoutEntriesDocument, FollowerDocumentError> {
        guard let entries = document.array else { return .failure(FollowerDocumentError("the entries are not a JSON array")) }
        var decoded = NightscoutEntriesDocument()
        for entry in entries {
            if let value = glucose(entry) { decoded.glucose.append(value) } else { decoded.ignored += 1 }
        }
        return .success(decoded)
    }

    static func glucose(_ entry: JSON) -> FollowedGlucose? {
        if let type = entry["type"], type.string != "sgv" { return nil }
        guard let milliseconds = entry["date"]?.integer, milliseconds > 0, milliseconds < 1 << 50 else { return nil }
        // Some uploaders send the number as a string.
        guard let sgv = entry["sgv"]?.number ?? entry["sgv"]?.string.flatMap(Double.init), plausible.contains(sgv) else { return nil }
        let trend = entry["direction"]?.string.flatMap(TrendDirection.init(nightscoutName:))
            ?? entry["trend"]?.integer.flatMap(TrendDirection.init(dexcomTrendNumber:))
        return FollowedGlucose(measured: WallClockTime(microsecondsSinceEpoch: milliseconds * 1000),
                               concentration: GlucoseConcentration(milligramsPerDeciliter: sgv), trend: trend)
    }
}
