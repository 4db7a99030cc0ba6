import Bluetooth
import Testing
@testable import Transmitters

@Suite struct TransmitterMatcherTests {
    static let strap = DeviceAddress(Address("C0:11:22:33:44:55")!, type: .random)
    static let neighbour = DeviceAddress(Address("C0:AA:BB:CC:DD:EE")!, type: .random)
    static let other = DeviceAddress(Address("00:1B:DC:01:02:03")!, type: .public)

    static let heartRateAd = AdvertisementSummary(address: neighbour, name: "Polar H10 1234", serviceUUIDs: [0x180D], rssi: -60)
    static let rememberedAd = AdvertisementSummary(address: strap, name: nil, serviceUUIDs: [], rssi: -80)
    static let unrelatedAd = AdvertisementSummary(address: other, name: "Kettle", serviceUUIDs: [0xFEAA], rssi: -40)

    @Test func rememberedAddressWinsOverEverythingElse() {
        let matcher = TransmitterMatcher(profile: HeartRateProfile.profile, remembered: Self.strap)
        // The neighbour's strap advertises the right service and comes first, but is not ours.
        #expect(!matcher.matches(Self.heartRateAd))
        // Ours matches even though its advertisement carries no name and no UUID.
        #expect(matcher.matches(Self.rememberedAd))
        #expect(matcher.choose(from: [Self.heartRateAd, Self.unrelatedAd, Self.rememberedAd]) == Self.rememberedAd)
        #expect(matcher.choose(from: [Self.heartRateAd, Self.unrelatedAd]) == nil)
    }

    @Test func rememberedAddressIncludesItsType() {
        let matcher = TransmitterMatcher(namePrefix: nil, advertisedService: nil, remembered: Self.strap)
        let samebitsPublic = AdvertisementSummary(address: DeviceAddress(Self.strap.address, type: .public))
        #expect(!matcher.matches(samebitsPublic))
    }

    @Test func matchesByNamePrefix() {
        let matcher = TransmitterMatcher(namePrefix: "Dexcom", advertisedService: nil, remembered: nil)
        #expect(matcher.matches(AdvertisementSummary(address: Self.other, name: "DexcomAB")))
        #expect(matcher.matches(AdvertisementSummary(address: Self.other, name: "Dexcom")))
        #expect(!matcher.matches(AdvertisementSummary(address: Self.other, name: "dexcomAB")))  // case-sensitive
        #expect(!matcher.matches(AdvertisementSummary(address: Self.other, name: "MyDexcom")))
        #expect(!matcher.matches(AdvertisementSummary(address: Self.other, name: nil, serviceUUIDs: [0xFEBC])))
    }

    @Test func matchesByAdvertisedService() {
        let matcher = TransmitterMatcher(profile: HeartRateProfile.profile, remembered: nil)
        #expect(matcher.matches(Self.heartRateAd))
        #expect(matcher.matches(AdvertisementSummary(address: Self.other, serviceUUIDs: [0x180F, 0x180D])))
        #expect(!matcher.matches(Self.unrelatedAd))
        #expect(!matcher.matches(AdvertisementSummary(address: Self.other, name: "Polar H10")))
        #expect(matcher.choose(from: [Self.unrelatedAd, Self.heartRateAd]) == Self.heartRateAd)
    }

    @Test func eitherNameOrServiceSufficesWhenBothAreDeclared() {
        let matcher = TransmitterMatcher(namePrefix: "Dexcom", advertisedService: 0xFEBC, remembered: nil)
        #expect(matcher.matches(AdvertisementSummary(address: Self.other, name: "DexcomAB")))
        #expect(matcher.matches(AdvertisementSummary(address: Self.other, name: nil, serviceUUIDs: [0xFEBC])))
        #expect(!matcher.matches(AdvertisementSummary(address: Self.other, name: "Kettle", serviceUUIDs: [0x180D])))
    }

    @Test func firstCandidateWhenTheProfileDeclaresNeither() {
        let matcher = TransmitterMatcher(namePrefix: nil, advertisedService: nil, remembered: nil)
        #expect(matcher.matches(Self.unrelatedAd))
        #expect(matcher.choose(from: [Self.unrelatedAd, Self.heartRateAd]) == Self.unrelatedAd)
        #expect(matcher.choose(from: [Self.heartRateAd, Self.unrelatedAd]) == Self.heartRateAd)
        #expect(matcher.choose(from: []) == nil)
    }

    @Test func firstMatchWinsRegardlessOfSignalStrength() {
        let matcher = TransmitterMatcher(profile: HeartRateProfile.profile, remembered: nil)
        let stronger = AdvertisementSummary(address: Self.strap, serviceUUIDs: [0x180D], rssi: -30)
        #expect(matcher.choose(from: [Self.heartRateAd, stronger]) == Self.heartRateAd)
    }

    @Test func describesAdvertisements() {
        #expect(Self.heartRateAd.description == "C0:AA:BB:CC:DD:EE (random) \"Polar H10 1234\" [180D] -60 dBm")
    }
}
