import Bluetooth

/// Decides which advertising peer is "our" transmitter.
///
/// Rules, in order:
/// 1. A transmitter that has connected before is matched by its remembered address **only**:
///    once we know our strap, a neighbour's strap of the same model must never be picked up.
/// 2. Otherwise a peer matches if its name starts with the profile's name prefix **or** it
///    advertises the profile's service UUID. Either suffices because many peripherals put the
///    name only in the scan response, which some controllers never deliver (Bumble's virtual
///    controller among them, in the interop rig), while others advertise no service UUID at all.
/// 3. If the profile declares neither, every peer is a candidate and the first one seen wins.
///
/// Among several matches `choose` takes the first in the order given (the order the scanner
/// saw them), so the outcome does not depend on fluctuating RSSI.
public struct TransmitterMatcher: Hashable, Sendable {
    public var namePrefix: String?
    public var advertisedService: BluetoothUUID?
    public var remembered: DeviceAddress?

    public init(namePrefix: String?, advertisedService: BluetoothUUID?, remembered: DeviceAddress?) {
        self.namePrefix = namePrefix
        self.advertisedService = advertisedService
        self.remembered = remembered
    }

    public init(profile: TransmitterProfile, remembered: DeviceAddress?) {
        self.init(namePrefix: profile.namePrefix, advertisedService: profile.advertisedService, remembered: remembered)
    }

    public func matches(_ advertisement: AdvertisementSummary) -> Bool {
        if let remembered { return advertisement.address == remembered }
        if namePrefix == nil && advertisedService == nil { return true }
        if let namePrefix, let name = advertisement.name, name.hasPrefix(namePrefix) { return true }
        if let advertisedService, advertisement.serviceUUIDs.contains(advertisedService) { return true }
        return false
    }

    /// The first matching advertisement, or nil.
    public func choose(from candidates: [AdvertisementSummary]) -> AdvertisementSummary? {
        candidates.first(where: matches)
    }
}
