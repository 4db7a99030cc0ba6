import Bluetooth
import Testing
@testable import Transmitters

@Suite struct HeartRateProfileTests {
    // HRS: service 0x180D advertised and served, measurements on 0x2A37
    // (docs/protocols/sig-heart-rate.md §Heart Rate Measurement).
    @Test func declaresTheHeartRateService() {
        let profile = HeartRateProfile.profile
        #expect(profile.advertisedService == 0x180D)
        #expect(profile.namePrefix == nil)
        #expect(profile.service == 0x180D)
        #expect(profile.receiveCharacteristic == 0x2A37)
        #expect(profile.writeCharacteristic == nil)
        #expect(profile.security == .pairingWhenAsked)
        #expect(HeartRateDriver.profile == profile)
    }

    @Test func everythingElseIsOptional() {
        let others = HeartRateProfile.profile.otherCharacteristics
        #expect(others.allSatisfy { $0.isOptional })
        #expect(others.map(\.characteristic.uuid16) == [0x2A38, 0x2A19, 0x2A24, 0x2A25, 0x2A26, 0x2A27, 0x2A28, 0x2A29])
        let services: [UInt16?] = [0x180D, 0x180F, 0x180A, 0x180A, 0x180A, 0x180A, 0x180A, 0x180A]
        #expect(others.map(\.service.uuid16) == services)
        // So a strap with only the measurement satisfies the profile.
        let minimal = DiscoveredServices([0x180D: [DiscoveredCharacteristic(0x2A37, properties: .notify)]])
        #expect(HeartRateProfile.profile.missingRequirement(in: minimal) == nil)
    }
}
