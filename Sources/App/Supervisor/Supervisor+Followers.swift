import Clocks
import Readings
import Web

extension Supervisor {
    /// A follower's exchange ended (docs/followers.md).
    mutating func followerExchangeEnded(_ device: DeviceID, _ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>, at now: ClockReadings) {
        // Skeleton: the follower of `device` takes the result here.
    }
}
