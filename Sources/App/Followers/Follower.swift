import Alarms
import Clocks
import Host
import Readings
import Web

/// A remote glucose source read over the internet (a Nightscout site, Dexcom Share,
/// LibreLinkUp), run like a transmitter: sans-IO, fed the end of each exchange and its
/// deadlines with both clocks, answering with requests to send, readings, link changes and log
/// lines (docs/followers.md).
///
/// One request at a time. It logs in (and again when the server forgets the session), then
/// polls on a schedule the readings set: shortly after the next reading should be on the
/// server, sooner never than `minimumGap`; while a reading is late, after 1, 2, 4 minutes up to
/// 5; after a failure, after 15 s doubling up to 5 minutes; after the service refused the
/// account, not for `refusedRetry`. Each fetch asks for what was measured after the newest
/// reading it has, so a gap is filled from the server's history.
public struct Follower: Sendable {
    /// Where the link to the service stands, as `vigil status` and the page say it.
    public enum Link: Hashable, Sendable {
        /// No exchange has ended yet.
        case starting
        /// The last exchange worked.
        case reachable
        /// The last exchange failed, for this reason; tried again after the back-off.
        case unreachable(String)
        /// The service refused the account (the line says what to do).
        case refused(String)
    }

    public enum Output: Sendable {
        /// Start this exchange; its end comes back through `exchangeEnded`.
        case send(HTTP.ClientRequest)
        /// New readings, oldest first, dated by the service's measured wall time.
        case readings([Reading])
        case linkChanged(Link)
        case log(Host.LogLevel, String)
    }

    /// The first fetch asks for this much history: enough for rate-of-change and the chart.
    public static let initialWindow = Duration.seconds(3 * 3600)
    /// A fetch never asks for more than a day (Dexcom Share's own limit, 1,440 minutes).
    public static let maximumWindow = Duration.seconds(24 * 3600)
    /// Polls are never closer than this, whatever the readings say.
    public static let minimumGap = Duration.seconds(10)
    /// While the next reading is late: the first wait, doubling to `lateCap`.
    public static let lateFirst = Duration.seconds(60)
    public static let lateCap = Duration.seconds(300)
    /// After a failure: the first wait, doubling to `failureCap`.
    public static let failureFirst = Duration.seconds(15)
    public static let failureCap = Duration.seconds(300)
    /// After the service refused the account (or locked it without saying for how long).
    public static let refusedRetry = Duration.seconds(30 * 60)
    /// Login steps in a row before the login counts as failed (a redirect loop).
    public static let maximumSteps = 6
    /// A reading dated at most this far ahead of the wall clock is taken as measured now (a
    /// phone's clock a little ahead); further ahead it is refused.
    public static let futureTolerance = Duration.seconds(120)

    public let device: DeviceID
    var service: any FollowerService
    public private(set) var link: Link = .starting
    /// The newest reading's measured time as the service dates it: fetches ask for what came after it.
    public private(set) var newest: WallClockTime?
    /// The reading before it, for the interval the readings keep.
    var previous: WallClockTime?
    var inFlight = false
    var nextAttempt: MonotonicInstant?
    var failures = 0
    var latePolls = 0
    var stepsInARow = 0
    var sessionEndsInARow = 0

    init(device: DeviceID, service: any FollowerService) {
        self.device = device
        self.service = service
    }

    public var serviceName: String { service.name }

    /// When `handleDeadline` has something to do: nil while an exchange runs.
    public var nextDeadline: MonotonicInstant? { inFlight ? nil : nextAttempt }

    /// How often a reading is expected: the two newest readings' distance, kept between a
    /// minute and five (a Libre uploads every minute, a Dexcom every five), and never longer
    /// than the service's own (LibreLinkUp's history holds a reading every 15 minutes, its
    /// current reading changes every minute).
    public var readingInterval: Duration {
        guard let newest, let previous else { return service.defaultInterval }
        return min(max(newest - previous, .seconds(60)), service.defaultInterval)
    }

    /// The first request, at once.
    public mutating func start(at now: ClockReadings) -> [Output] {
        nextAttempt = now.monotonic
        return handleDeadline(at: now)
    }

    public mutating func handleDeadline(at now: ClockReadings) -> [Output] {
        guard !inFlight, let due = nextAttempt, now.monotonic >= due else { return [] }
        inFlight = true
        nextAttempt = nil
        return [.send(service.nextRequest(since: newest, now: now.wall))]
    }

    /// The exchange started by the last `.send` ended.
    public mutating func exchangeEnded(_ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>, at now: ClockReadings) -> [Output] {
        guard inFlight else { return [] }
        inFlight = false
        switch result {
        case let .failure(failure):
            return failed("\(failure)", at: now)
        case let .success(response):
            return answered(service.receive(response, now: now.wall), at: now)
        }
    }

    mutating func answered(_ step: FollowerStep, at now: ClockReadings) -> [Output] {
        switch step {
        case .advanced:
            stepsInARow += 1
            guard stepsInARow <= Self.maximumSteps else {
                stepsInARow = 0
                return failed("logging in did not end after \(Self.maximumSteps) steps", at: now)
            }
            nextAttempt = now.monotonic
            return handleDeadline(at: now)
        case .sessionEnded:
            sessionEndsInARow += 1
            // Once at once; a session refused again right after a login is a failure.
            guard sessionEndsInARow <= 1 else { return failed("the service keeps refusing a new session", at: now) }
            nextAttempt = now.monotonic
            return [.log(.info, "\(device): \(service.name) ended the session; logging in again")] + handleDeadline(at: now)
        case let .refused(line):
            return refused(line, retryAfter: Self.refusedRetry, at: now)
        case let .locked(line, retryAfter):
            return refused(line, retryAfter: retryAfter ?? Self.refusedRetry, at: now)
        case let .failed(line):
            return failed(line, at: now)
        case let .glucose(values, ignored):
            stepsInARow = 0
            sessionEndsInARow = 0
            failures = 0
            var outputs = linked(.reachable, level: .notice, at: now)
            let (readings, lines) = admit(values, at: now)
            outputs += lines.map { .log(.warning, "\(device): \($0)") }
            if ignored > 0 { outputs.append(.log(.info, "\(device): \(ignored) records from \(service.name) are not glucose readings Vigil uses")) }
            if readings.isEmpty {
                latePolls += 1
            } else {
                latePolls = 0
                outputs.append(.readings(readings))
            }
            nextAttempt = nextPoll(at: now)
            return outputs
        }
    }

    /// The readings newer than the newest one, oldest first, each refused with a line if the
    /// wall clock cannot place it: the clock not set yet, or a reading from the future.
    mutating func admit(_ values: [FollowedGlucose], at now: ClockReadings) -> (readings: [Reading], lines: [String]) {
        guard now.wall >= ApplianceAlarms.earliestBelievableTime else {
            return ([], values.isEmpty ? [] : ["\(values.count) readings not taken: the wall clock is not set (\(now.wall))"])
        }
        var lines: [String] = []
        var readings: [Reading] = []
        for value in values.sorted(by: { $0.measured < $1.measured }) {
            if let newest, value.measured <= newest { continue }
            var measured = value.measured
            if measured > now.wall {
                guard measured - now.wall <= Self.futureTolerance else {
                    lines.append("a reading dated \(measured), \(measured - now.wall) ahead of the wall clock, is refused")
                    continue
                }
                measured = now.wall
            }
            readings.append(Reading(device: device, value: .glucose(value.concentration, trend: value.trend), time: .wallClock(measured),
                                    sensorStamp: SensorStamp(run: service.stampRun, count: value.measured.millisecondsSinceEpoch)))
            // The service's own date, not the one clamped to now: the next fetch asks after it.
            if let newest { previous = newest }
            newest = value.measured
        }
        return (readings, lines)
    }

    /// Shortly after the next reading should be on the server; while it is late, 1, 2, 4, 5
    /// minutes after this poll.
    func nextPoll(at now: ClockReadings) -> MonotonicInstant {
        let soonest = now.monotonic + Self.minimumGap
        if let newest {
            let due = newest + readingInterval + service.uploadDelay
            if due > now.wall { return max(soonest, now.monotonic + (due - now.wall)) }
        }
        let late = Self.doubling(Self.lateFirst, times: max(0, latePolls - 1), cap: Self.lateCap)
        return max(soonest, now.monotonic + late)
    }

    mutating func failed(_ line: String, at now: ClockReadings) -> [Output] {
        failures += 1
        stepsInARow = 0
        sessionEndsInARow = 0
        let wait = Self.doubling(Self.failureFirst, times: failures - 1, cap: Self.failureCap)
        nextAttempt = now.monotonic + wait
        return linked(.unreachable(line), level: .warning, at: now)
    }

    mutating func refused(_ line: String, retryAfter: Duration, at now: ClockReadings) -> [Output] {
        stepsInARow = 0
        sessionEndsInARow = 0
        nextAttempt = now.monotonic + retryAfter
        return linked(.refused(line), level: .error, at: now)
    }

    /// The link's new state, said when it changes.
    mutating func linked(_ new: Link, level: Host.LogLevel, at now: ClockReadings) -> [Output] {
        guard new != link else { return [] }
        let before = link
        link = new
        let line: String = switch new {
        case .reachable: before == .starting ? "\(service.name) reached" : "\(service.name) reachable again"
        case let .unreachable(reason): "\(service.name) unreachable: \(reason)"
        case let .refused(reason): "\(service.name) refused: \(reason); asked again in \(nextAttempt.map { $0 - now.monotonic } ?? .zero)"
        case .starting: "\(service.name) starting"
        }
        return [.linkChanged(new), .log(level, "\(device): \(line)")]
    }

    static func doubling(_ first: Duration, times: Int, cap: Duration) -> Duration {
        var wait = first
        for _ in 0..<min(times, 16) where wait < cap { wait = wait * 2 }
        return min(wait, cap)
    }
}
