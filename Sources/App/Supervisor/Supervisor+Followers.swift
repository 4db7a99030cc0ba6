import Bluetooth
import Clocks
import Readings
import Web

/// The follower sources (docs/followers.md): each runs beside the appliance, its requests go
/// through the supervisor's HTTP client, and its readings enter the same report as a
/// transmitter's — the alarms on the device's own signal-loss channel, the history marked as
/// followed — except those a direct Bluetooth source already delivered for the same moment.
extension Supervisor {
    /// The followers' first requests.
    mutating func startFollowers(at now: ClockReadings) {
        for index in followers.indices { carryOut(followers[index].start(at: now), of: index, at: now) }
    }

    /// Each follower whose time has come asks again.
    mutating func followersDeadline(at now: ClockReadings) {
        for index in followers.indices { carryOut(followers[index].handleDeadline(at: now), of: index, at: now) }
    }

    var followersNextDeadline: MonotonicInstant? { earliest(followers.map(\.nextDeadline)) }

    /// A follower's exchange ended (docs/followers.md).
    mutating func followerExchangeEnded(_ device: DeviceID, _ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>, at now: ClockReadings) {
        guard let index = followers.firstIndex(where: { $0.device == device }) else { return }
        carryOut(followers[index].exchangeEnded(result, at: now), of: index, at: now)
        report(at: now)
    }

    private mutating func carryOut(_ outputs: [Follower.Output], of index: Int, at now: ClockReadings) {
        let device = followers[index].device
        for output in outputs {
            switch output {
            case let .send(request):
                fetch(request, for: .follow(device), at: now.monotonic)
            case let .readings(readings):
                let fresh = readings.filter { reading in
                    guard case .glucose = reading.value, case let .wallClock(time) = reading.time else { return true }
                    return !directGlucose.covers(time)
                }
                if fresh.count < readings.count {
                    log(.info, "\(device): \(readings.count - fresh.count) followed readings a Bluetooth source already gave are not counted again")
                }
                if !fresh.isEmpty { followerEvents.append(.readings(device, peer: nil, fresh)) }
            case .linkChanged:
                website?.stateChanged = true
            case let .log(level, line):
                log(level, line)
            }
        }
    }

    /// The events the followers produced since the last report.
    mutating func takeFollowerEvents() -> [ApplianceEvent] {
        defer { followerEvents.removeAll() }
        return followerEvents
    }

    /// Whether `device` is a follower (its readings are stored as followed).
    func isFollower(_ device: DeviceID) -> Bool { followers.contains { $0.device == device } }

    /// A direct source's glucose readings, remembered by their measured wall time.
    mutating func noteDirectGlucose(_ event: ApplianceEvent, at now: ClockReadings) {
        guard case let .readings(device, _, readings) = event, !isFollower(device) else { return }
        for reading in readings where reading.kind == .glucose {
            directGlucose.note(reading.time.wallClockTime(monotonicNow: now.monotonic, wallNow: now.wall))
        }
    }

    /// Every device's link for `vigil status` and the page: the appliance's, then the followers'.
    public func links(at now: MonotonicInstant) -> [(device: DeviceID, link: ApplianceStatus.Link, peer: DeviceAddress?)] {
        appliance.links(at: now) + followers.map { follower in
            let link: ApplianceStatus.Link = switch follower.link {
            case .starting: .reachingServer(follower.serviceName)
            case .reachable: .following(follower.serviceName)
            case let .unreachable(reason): .serverUnreachable(follower.serviceName, reason: reason)
            case let .refused(reason): .serverRefused(follower.serviceName, reason: reason)
            }
            return (follower.device, link, nil)
        }
    }
}
