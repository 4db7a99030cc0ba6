import Bluetooth
import Testing
@testable import Transmitters

struct DexcomProfileTests {
    // docs/protocols/dexcom-g5-g6.md §Discovery and identity, §GATT layout (CGMBLEKit
    // BluetoothServices.swift).
    @Test func uuids() {
        #expect(DexcomProfile.cgmService == BluetoothUUID("F8083532-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomProfile.communication == BluetoothUUID("F8083533-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomProfile.control == BluetoothUUID("F8083534-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomProfile.authentication == BluetoothUUID("F8083535-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomProfile.backfill == BluetoothUUID("F8083536-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomProfile.advertisedService.uuid16 == 0xFEBC)
        #expect(DexcomDriver.profile.namePrefix == "Dexcom")
        #expect(DexcomDriver.profile.security == .none)
    }

    @Test func matching() {
        let matcher = TransmitterMatcher(profile: DexcomProfile.profile, remembered: nil)
        let address = DeviceAddress(Address(value: 0xC0_00_00_00_00_01), type: .random)
        #expect(matcher.matches(AdvertisementSummary(address: address, name: "DexcomAB")))
        #expect(matcher.matches(AdvertisementSummary(address: address, serviceUUIDs: [BluetoothUUID(0xFEBC)])))
        #expect(!matcher.matches(AdvertisementSummary(address: address, name: "Polar H10")))
    }

    @Test func registered() {
        #expect(TransmitterRegistry.builtIn.type(named: "dexcom") != nil)
    }
}
