import Clocks
import Host
import Readings
import Web
@testable import App

/// A follower on a virtual clock, with what it sent, reported and said collected; a test
/// answers each request and jumps to the next deadline.
struct FollowerHarness {
    /// 2025-11-28T03:20:00Z, and a monotonic clock that started an hour before.
    static let start = ClockReadings(monotonic: .zero + .seconds(3600), wall: WallClockTime(secondsSinceEpoch: 1_764_300_000))

    var follower: Follower
    var now = FollowerHarness.start
    var sent: [HTTP.ClientRequest] = []
    var readings: [Reading] = []
    var links: [Follower.Link] = []
    var logs: [(Host.LogLevel, String)] = []

    init(_ source: FollowerSource, device: DeviceID = "remote") {
        follower = Follower(device: device, source: source)
        take(follower.start(at: now))
    }

    var last: HTTP.ClientRequest { sent[sent.count - 1] }
    var lastBody: JSON? { try? JSON.parse(last.body) }
    func header(_ name: String) -> String? { last.headers.first { $0.name == name }?.value }

    /// The last request's query items, decoded.
    var query: [String: String] {
        guard let mark = last.url.target.firstIndex(of: "?") else { return [:] }
        var items: [String: String] = [:]
        for pair in last.url.target[last.url.target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { Self.decoded(String($0)) }
            items[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return items
    }

    static func decoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    var path: String { String(last.url.target.prefix { $0 != "?" }) }

    mutating func take(_ outputs: [Follower.Output]) {
        for output in outputs {
            switch output {
            case let .send(request): sent.append(request)
            case let .readings(new): readings += new
            case let .linkChanged(link): links.append(link)
            case let .log(level, line): logs.append((level, line))
            }
        }
    }

    mutating func answer(_ status: Int, _ body: String) {
        take(follower.exchangeEnded(.success(HTTP.ClientResponse(status: status, body: Array(body.utf8))), at: now))
    }

    mutating func fail(_ failure: HTTP.ClientFailure) {
        take(follower.exchangeEnded(.failure(failure), at: now))
    }

    /// Both clocks moved on by `duration`, and the follower's deadline handled.
    mutating func pass(_ duration: Duration) {
        now = ClockReadings(monotonic: now.monotonic + duration, wall: now.wall + duration)
        take(follower.handleDeadline(at: now))
    }

    /// How long until the follower's next request.
    var wait: Duration? { follower.nextDeadline.map { $0 - now.monotonic } }

    /// Jumps to the next deadline; returns how long that was.
    @discardableResult
    mutating func passToDeadline() -> Duration? {
        guard let wait else { return nil }
        pass(wait)
        return wait
    }

    /// Each reading's value, measured time (seconds since the start) and trend.
    var summary: [(Double, Int64, TrendDirection?)] {
        readings.map { reading in
            guard case let .glucose(value, trend) = reading.value, case let .wallClock(time) = reading.time else { return (0, 0, nil) }
            return (value.milligramsPerDeciliter, (time - Self.start.wall).components.seconds, trend)
        }
    }
}

/// A Nightscout entry measured `seconds` after (or before) the harness's start.
func entry(_ sgv: Int, at seconds: Int64, direction: String? = "Flat") -> String {
    let date = (FollowerHarness.start.wall.secondsSinceEpoch + seconds) * 1000
    return #"{"_id":"e\#(date)","type":"sgv","sgv":\#(sgv),"date":\#(date)"# + (direction.map { #","direction":"\#($0)""# } ?? "") + "}"
}
