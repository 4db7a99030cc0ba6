import Bluetooth
import Clocks
import Readings
import Transmitters

/// One configured broadcast transmitter (a thermometer that puts its readings in its
/// advertisements): never connected, only listened to.
struct BroadcastSlot: Sendable {
    var decoder: any BroadcastDecoder
    var remembered: DeviceAddress?
    let fixedAddress: Address?
    let namePrefix: String?
    /// The last info the decoder reported: a thermometer repeats its battery level in every
    /// advertisement, which is news only when it changes.
    var lastInfo: TransmitterInfo?

    var device: DeviceID { decoder.device }
    var nextDeadline: MonotonicInstant? { decoder.nextDeadline }

    func matches(_ summary: AdvertisementSummary) -> Bool {
        decoder.matches(summary, remembered: remembered, configuredAddress: fixedAddress, namePrefix: namePrefix)
    }
}
