import Bluetooth
import Testing
@testable import Transmitters

// docs/protocols/dexcom-g7.md §Family and names, §GATT layout (G7SensorKit BluetoothServices.swift).
struct DexcomG7ProfileTests {
    @Test func uuids() {
        #expect(DexcomG7Profile.cgmService == BluetoothUUID("F8083532-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomG7Profile.certificate == BluetoothUUID("F8083538-849E-531C-C594-30F1F86A4EA5"))
        #expect(DexcomG7Driver.profile.otherCharacteristics.contains(
            CharacteristicRequirement(service: DexcomG7Profile.cgmService, characteristic: DexcomG7Profile.certificate)))
        #expect(DexcomG7Driver.profile.security == .none)
        #expect(DexcomG7Driver.profile.remembersPeer == .whenProven)
    }

    /// By name only: every family prefix, never a G6 (whose 0xFEBC a G7 shares).
    @Test func matching() {
        let matcher = TransmitterMatcher(profile: DexcomG7Profile.profile, remembered: nil)
        let address = DeviceAddress(Address(value: 0xC0_00_00_00_00_01), type: .random)
        for name in ["DXCMAB", "DX02CD", "DX01EF"] {
            #expect(matcher.matches(AdvertisementSummary(address: address, name: name)), "\(name)")
        }
        #expect(!matcher.matches(AdvertisementSummary(address: address, name: "DexcomAB")))
        #expect(!matcher.matches(AdvertisementSummary(address: address, serviceUUIDs: [BluetoothUUID(0xFEBC)])))
    }

    @Test func registered() {
        #expect(TransmitterRegistry.builtIn.type(named: "dexcom-g7") != nil)
    }
}
