import Clocks
import Readings
import Web

/// Why an exchange was started, so its end reaches the part that asked (docs/network.md "The
/// supervisor's side").
public enum NetworkPurpose: Hashable, Sendable {
    /// The Nightscout upload.
    case upload
    /// A follower source, by its device.
    case follow(DeviceID)
}

extension Supervisor {
    /// Starts an exchange for `purpose`; its result comes back through `uploadExchangeEnded` or
    /// `followerExchangeEnded`.
    @discardableResult
    mutating func fetch(_ request: HTTP.ClientRequest, for purpose: NetworkPurpose, at now: MonotonicInstant) -> HTTP.ExchangeID {
        let id = httpClient.start(request, at: now)
        exchangePurposes[id] = purpose
        takeHTTPActions()
        return id
    }

    /// The runner's report on an exchange's connection.
    public mutating func network(_ event: HTTP.Client.Event, at now: ClockReadings) {
        httpClient.handle(event, at: now.monotonic)
        advanceNetwork(at: now)
    }

    /// Time-outs fired, actions handed to the runner, finished exchanges dispatched.
    mutating func advanceNetwork(at now: ClockReadings) {
        httpClient.advance(to: now.monotonic)
        takeHTTPActions()
        for (id, result) in httpClient.takeFinished() {
            guard let purpose = exchangePurposes.removeValue(forKey: id) else { continue }
            switch purpose {
            case .upload: uploadExchangeEnded(result, at: now)
            case let .follow(device): followerExchangeEnded(device, result, at: now)
            }
        }
        takeHTTPActions()
    }

    private mutating func takeHTTPActions() {
        for action in httpClient.takeActions() { actions.append(.http(action)) }
    }
}
