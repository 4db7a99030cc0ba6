import Bluetooth
import Testing
@testable import Transmitters

@Suite struct GlucoseMeterProfileTests {
    // GLS: service 0x1808, Glucose Measurement 0x2A18, RACP 0x2A52 (docs/protocols/sig-glucose.md).
    @Test func declaresTheGlucoseService() {
        let profile = GlucoseMeterProfile.profile
        #expect(profile.advertisedService == 0x1808)
        #expect(profile.service == 0x1808)
        #expect(profile.receiveCharacteristic == 0x2A18)
        #expect(profile.writeCharacteristic == 0x2A52)
        #expect(profile.security == .encryptionRequired)
        #expect(GlucoseMeterDriver.profile == profile)
        #expect(profile.otherCharacteristics.allSatisfy { $0.isOptional })
        #expect(profile.otherCharacteristics.map(\.characteristic.uuid16) == [0x2A34, 0x2A51, 0x2A19])
        #expect(profile.servicesToDiscover == [0x1808, 0x180F])
        let minimal = DiscoveredServices([0x1808: [DiscoveredCharacteristic(0x2A18, properties: .notify),
                                                   DiscoveredCharacteristic(0x2A52, properties: [.write, .indicate])]])
        #expect(profile.missingRequirement(in: minimal) == nil)
        #expect(profile.missingRequirement(in: DiscoveredServices([0x1808: [DiscoveredCharacteristic(0x2A18, properties: .notify)]])) != nil)
    }
}
