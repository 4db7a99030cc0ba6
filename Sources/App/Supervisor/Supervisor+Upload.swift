import Clocks
import Web

extension Supervisor {
    /// An upload's exchange ended (docs/nightscout-upload.md).
    mutating func uploadExchangeEnded(_ result: Result<HTTP.ClientResponse, HTTP.ClientFailure>, at now: ClockReadings) {
        // Skeleton: the uploader takes the result here.
    }
}
