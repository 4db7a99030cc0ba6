import Clocks
import Readings
import Web

/// Follows the Dexcom Share service the Dexcom app uploads to (docs/followers.md "Dexcom
/// Share"), as the publisher (the account the app is logged in with):
/// 1. `POST General/AuthenticatePublisherAccount` {accountName, password, applicationId} →
///    the account id, a quoted UUID;
/// 2. `POST General/LoginPublisherAccountById` {accountId, password, applicationId} → the
///    session id; when the session expires only this step is repeated;
/// 3. `POST Publisher/ReadPublisherLatestGlucoseValues?sessionId=&minutes=&maxCount=` → the
///    readings, newest first.
/// An all-zero UUID from either login step is a refused password. Errors come as a JSON
/// object with `Code` and `Message`.
struct DexcomShareFollowerService: FollowerService {
    let server: DexcomShareServer
    let username: String
    let password: String
    var accountID: String?
    var sessionID: String?
    /// Which request the last one was.
    var asked = Request.account

    enum Request: Hashable, Sendable { case account, session, readings }

    init(server: DexcomShareServer, username: String, password: String) {
        self.server = server
        self.username = username
        self.password = password
    }

    var name: String { "Dexcom Share" }
    var stampRun: String { "dexcom-share" }
    var defaultInterval: Duration { .seconds(300) }
    var uploadDelay: Duration { .seconds(20) }

    /// The service's limits on one read: a day, 288 readings.
    static let maximumMinutes: Int64 = 1440
    static let maximumCount: Int64 = 288
    static let zeroUUID = "00000000-0000-0000-0000-000000000000"

    func url(_ path: String) -> HTTP.URL { server.url.appending("/ShareWebServices/Services/" + path) }

    mutating func nextRequest(since: WallClockTime?, now: WallClockTime) -> HTTP.ClientRequest {
        let headers = [(name: "Content-Type", value: "application/json"), (name: "Accept", value: "application/json")]
        /// A login step: who (by name or by account id), the password and the application.
        func login(_ path: String, _ who: (String, String)) -> HTTP.ClientRequest {
            let body = JSON.object([(who.0, .string(who.1)), ("password", .string(password)), ("applicationId", .string(server.applicationID))])
            return HTTP.ClientRequest(method: .post, url: url(path), headers: headers, body: Array(body.rendered.utf8))
        }
        guard let accountID else {
            asked = .account
            return login("General/AuthenticatePublisherAccount", ("accountName", username))
        }
        guard let sessionID else {
            asked = .session
            return login("General/LoginPublisherAccountById", ("accountId", accountID))
        }
        asked = .readings
        let after = since ?? (now - Follower.initialWindow)
        let minutes = min(Self.maximumMinutes, max(1, (now - after).components.seconds / 60 + 1))
        // One reading every 5 minutes, and two to spare.
        let count = min(Self.maximumCount, minutes / 5 + 2)
        var target = url("Publisher/ReadPublisherLatestGlucoseValues")
        target.target += "?" + FollowerQuery.query([("sessionId", sessionID), ("minutes", String(minutes)), ("maxCount", String(count))])
        return HTTP.ClientRequest(method: .post, url: target, headers: headers, body: Array("{}".utf8))
    }

    mutating func receive(_ response: HTTP.ClientResponse, now: WallClockTime) -> FollowerStep {
        guard response.status == 200 else { return fault(response) }
        let what = asked == .readings ? "the readings" : asked == .account ? "the account id" : "the session id"
        let document: JSON
        switch response.json(what) {
        case let .failure(error): return .failed(error.description)
        case let .success(json): document = json
        }
        switch asked {
        case .account, .session:
            guard let id = document.string, Self.isUUID(id) else { return .failed("\(what) is not a UUID") }
            guard id != Self.zeroUUID else { return .refused(Self.wrongPassword) }
            if asked == .account { accountID = id } else { sessionID = id }
            return .advanced
        case .readings:
            switch DexcomShareValuesDocument.decode(document) {
            case let .failure(error): return .failed(error.description)
            case let .success(values): return .glucose(values.glucose, ignored: values.ignored)
            }
        }
    }

    static let wrongPassword = "Dexcom Share refused the user name or password (the Dexcom account's own, not a follower's)"

    /// A refusal: `{"Code": ..., "Message": ...}` (pydexcom `_handle_response`, docs/followers.md).
    mutating func fault(_ response: HTTP.ClientResponse) -> FollowerStep {
        let code = (try? JSON.parse(response.body))?["Code"]?.string ?? ""
        let message = (try? JSON.parse(response.body))?["Message"]?.string ?? ""
        switch code {
        case "SessionIdNotFound", "SessionNotValid":
            sessionID = nil
            return .sessionEnded
        case "AccountPasswordInvalid", "SSO_AuthenticatePasswordInvalid", "SSO_AuthenticateAccountNotFound":
            return .refused(Self.wrongPassword)
        case "SSO_AuthenticateMaxAttemptsExceeded":
            return .locked("Dexcom Share locked the account after too many failed logins", retryAfter: nil)
        case "SSO_InternalError" where message.contains("Cannot Authenticate"):
            return .refused(Self.wrongPassword)
        case "":
            return .failed(response.unexpectedStatusLine)
        default:
            return .failed("\(response.unexpectedStatusLine): \(FollowerQuery.printable(code))")
        }
    }

    /// 8-4-4-4-12 hexadecimal digits.
    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}

/// The readings array (docs/followers.md "Dexcom Share"): `WT` the measured wall time as
/// `"Date(1764300000000)"` (epoch milliseconds, UTC), `Value` in mg/dL, `Trend` a name
/// (`"Flat"`) or Dexcom's number. `ST` and `DT` (the display time, with the phone's offset)
/// are not used: `WT` is the one in UTC.
struct DexcomShareValuesDocument: Hashable, Sendable {
    var glucose: [FollowedGlucose] = []
    var ignored = 0

    static func decode(_ document: JSON) -> Result<DexcomShareValuesDocument, FollowerDocumentError> {
        guard let values = document.array else { return .failure(FollowerDocumentError("the readings are not a JSON array")) }
        var decoded = DexcomShareValuesDocument()
        for value in values {
            guard let wall = value["WT"]?.string.flatMap(Self.milliseconds), let mgdl = value["Value"]?.number,
                  NightscoutEntriesDocument.plausible.contains(mgdl)
            else {
                decoded.ignored += 1
                continue
            }
            let trend = value["Trend"]?.string.flatMap(TrendDirection.init(dexcomTrendName:))
                ?? value["Trend"]?.integer.flatMap(TrendDirection.init(dexcomTrendNumber:))
            decoded.glucose.append(FollowedGlucose(measured: WallClockTime(microsecondsSinceEpoch: wall * 1000),
                                                   concentration: GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: trend))
        }
        return .success(decoded)
    }

    /// `Date(1764300000000)`, or with an offset after the digits (`Date(1764300000000-0500)`,
    /// which `DT` carries): the milliseconds are UTC either way. Older answers wrap it in
    /// slashes (`/Date(1426292039000)/`, share2nightscout-bridge's sample).
    static func milliseconds(_ text: String) -> Int64? {
        var text = Substring(text)
        if text.hasPrefix("/"), text.hasSuffix("/"), text.count >= 2 { text = text.dropFirst().dropLast() }
        guard text.hasPrefix("Date("), text.hasSuffix(")") else { return nil }
        let inner = text.dropFirst(5).dropLast()
        let digits = inner.prefix { $0.isASCII && $0.isNumber }
        let rest = inner.dropFirst(digits.count)
        guard !digits.isEmpty, digits.count <= 15, rest.isEmpty || Self.isOffset(rest), let value = Int64(digits) else { return nil }
        return value
    }

    static func isOffset(_ text: Substring) -> Bool {
        text.count == 5 && (text.first == "+" || text.first == "-") && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }
}
