import Clocks
import Readings
import Web

/// One remote service a follower reads (Nightscout, Dexcom Share, LibreLinkUp): what to ask
/// next and what an answer means. The shared `Follower` decides when to ask, backs off, dates
/// and filters what comes back, so a service is only its protocol (docs/followers.md).
protocol FollowerService: Sendable {
    /// The service's name in log lines and `vigil status`.
    var name: String { get }
    /// The `SensorStamp` run of its readings: the service's own date of a reading is its name
    /// there (docs/reading-identity.md "Followed readings").
    var stampRun: String { get }
    /// How often a reading is expected before the readings themselves say otherwise.
    var defaultInterval: Duration { get }
    /// How long after a reading is measured it is usually on the server: the phone uploads it.
    var uploadDelay: Duration { get }

    /// The next request: a step of logging in while no session is held, else the readings
    /// measured after `since` (nil: the service's recent history, `Follower.initialWindow`).
    mutating func nextRequest(since: WallClockTime?, now: WallClockTime) -> HTTP.ClientRequest
    /// What the answer to the last request means.
    mutating func receive(_ response: HTTP.ClientResponse, now: WallClockTime) -> FollowerStep
}

/// What one answer meant to a service.
enum FollowerStep: Hashable, Sendable {
    /// A step of logging in worked (a session, a redirect, the patient chosen): ask the next at once.
    case advanced
    /// A fetch answered: the readings in it (any order; old ones included), and how many of
    /// its records were not readings Vigil could use (said in a log line).
    case glucose([FollowedGlucose], ignored: Int)
    /// The server no longer knows the session: log in again.
    case sessionEnded
    /// The service refused the account (a wrong password, terms to accept): the line says
    /// what the person must do. Not asked again for `Follower.refusedRetry`, so that a wrong
    /// password does not lock the account.
    case refused(String)
    /// The service says to wait (an account locked after failed logins), for this long if it said.
    case locked(String, retryAfter: Duration?)
    /// The answer is not usable (a server error, a document that is not what the service
    /// sends): tried again after the back-off.
    case failed(String)
}

/// A glucose value as a service reported it: measured at its own wall time, in mg/dL.
struct FollowedGlucose: Hashable, Sendable {
    var measured: WallClockTime
    var concentration: GlucoseConcentration
    var trend: TrendDirection?
}

extension HTTP.ClientResponse {
    /// The body as JSON, or the failure a follower reports for it.
    func json(_ what: String) -> Result<JSON, FollowerDocumentError> {
        do throws(JSONError) {
            return .success(try JSON.parse(body))
        } catch {
            return .failure(FollowerDocumentError("\(what) (HTTP \(status)) is \(error)"))
        }
    }

    /// The line for an answer a service did not expect: its status and the reason phrase's sense.
    var unexpectedStatusLine: String {
        switch status {
        case 500...: "the server answered HTTP \(status) (a server error)"
        case 429: "the server answered HTTP 429 (too many requests)"
        default: "the server answered HTTP \(status)"
        }
    }
}

/// A document that is not what the service sends, in words for a log line (never its content).
struct FollowerDocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
