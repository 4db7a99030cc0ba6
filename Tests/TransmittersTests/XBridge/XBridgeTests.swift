import Bluetooth
import Testing
@testable import Transmitters

@Suite struct XBridgeTests {
    // HM-10 serial service FFE0 / characteristic FFE1 (xDrip HM10Attributes.java;
    // docs/protocols/xbridge.md §Transport).
    @Test func declaresTheHM10SerialProfile() {
        let profile = XBridge.profile
        #expect(profile.service.uuid16 == 0xFFE0)
        #expect(profile.receiveCharacteristic.uuid16 == 0xFFE1)
        #expect(profile.advertisedService == nil)
        #expect(profile.namePrefix == "x")
        #expect(profile.security == SecurityRequirement.none)
        #expect(XBridgeDriver.profile == profile)
        #expect(profile.missingRequirement(in: DiscoveredServices([0xFFE0: [DiscoveredCharacteristic(0xFFE1, properties: .notify)]])) == nil)
        #expect(profile.missingRequirement(in: DiscoveredServices([0xFFE0: []])) != nil)
    }

    @Test(arguments: ["xDrip", "xBridge0a1b", "xBridge"])
    func matchesBothBridgeNames(name: String) {
        let matcher = TransmitterMatcher(profile: XBridge.profile, remembered: nil)
        #expect(matcher.matches(AdvertisementSummary(address: DeviceAddress(Address("C0:00:00:00:00:01")!, type: .random), name: name)))
        #expect(XBridge.namePrefixes.contains { name.hasPrefix($0) })
    }

    @Test func doesNotMatchASensorTagSharingTheService() {
        let matcher = TransmitterMatcher(profile: XBridge.profile, remembered: nil)
        #expect(!matcher.matches(AdvertisementSummary(address: DeviceAddress(Address("C0:00:00:00:00:02")!, type: .public),
                                                      name: "SensorTag", serviceUUIDs: [XBridge.service])))
    }
}
