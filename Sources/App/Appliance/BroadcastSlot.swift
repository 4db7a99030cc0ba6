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

    /// One of its advertisements (`matches`): what to report, and whether this is the first
    /// peer that brought a reading, to be remembered as the transmitter's.
    mutating func heard(_ summary: AdvertisementSummary, at now: MonotonicInstant) -> (events: [ApplianceEvent], isFirstFromPeer: Bool) {
        let produced = decoder.decode(summary, at: now)
        let first = remembered == nil && produced.containsReading
        if first { remembered = summary.address }
        let fresh = produced.filter { event in
            guard case .info(let info) = event else { return true }
            defer { lastInfo = info }
            return info != lastInfo
        }
        return (report(fresh, peer: summary.address), first)
    }

    mutating func deadlinePassed(at now: MonotonicInstant) -> [ApplianceEvent] {
        guard let due = decoder.nextDeadline, now >= due else { return [] }
        return report(decoder.handleDeadline(at: now), peer: remembered)
    }

    /// The decoder's events as the appliance reports them: readings together, the rest one by one.
    private func report(_ produced: [TransmitterEvent], peer: DeviceAddress?) -> [ApplianceEvent] {
        var events: [ApplianceEvent] = []
        var readings: [Reading] = []
        for event in produced {
            if case .reading(let r) = event { readings.append(r) } else { events.append(.transmitter(device, peer: peer, event)) }
        }
        if !readings.isEmpty { events.append(.readings(device, peer: peer, readings)) }
        return events
    }
}
