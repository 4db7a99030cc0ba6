import Bluetooth
import Testing
@testable import Transmitters

@Suite struct TransmitterProfileTests {
    // The shape of a vendor profile (128-bit service, control and data characteristics); the
    // characteristic UUIDs are placeholders, not a real transmitter's.
    static let vendorService = BluetoothUUID("F8083532-849E-531C-C594-30F1F86A4EA5")!
    static let profile = TransmitterProfile(
        advertisedService: 0xFEBC, namePrefix: "Dexcom", service: vendorService,
        receiveCharacteristic: 0x3535, writeCharacteristic: 0x3534,
        otherCharacteristics: [
            CharacteristicRequirement(service: 0x180F, characteristic: 0x2A19, isOptional: true),
            CharacteristicRequirement(service: vendorService, characteristic: 0x3536),
            CharacteristicRequirement(service: 0x180A, characteristic: 0x2A26, isOptional: true),
            CharacteristicRequirement(service: 0x180F, characteristic: 0x2A1A, isOptional: true),
        ],
        security: .encryptionRequired)

    static let complete = DiscoveredServices([
        vendorService: [DiscoveredCharacteristic(0x3534, properties: [.write]),
                     DiscoveredCharacteristic(0x3535, properties: [.indicate]),
                     DiscoveredCharacteristic(0x3536, properties: [.notify])],
    ])

    @Test func listsServicesPrimaryFirstWithoutDuplicates() {
        #expect(Self.profile.servicesToDiscover == [Self.vendorService, 0x180F, 0x180A])
        #expect(HeartRateProfile.profile.servicesToDiscover == [0x180D, 0x180F, 0x180A])
    }

    @Test func acceptsDiscoveryWithEverythingRequired() {
        // Optional battery and device information are absent: still fine.
        #expect(Self.profile.missingRequirement(in: Self.complete) == nil)
    }

    @Test func namesWhatIsMissing() {
        #expect(Self.profile.missingRequirement(in: DiscoveredServices()) == "service F8083532-849E-531C-C594-30F1F86A4EA5 not found")
        var noWrite = Self.complete
        noWrite.services[Self.vendorService]?.removeFirst()
        #expect(Self.profile.missingRequirement(in: noWrite)
            == "characteristic 3534 not found in service F8083532-849E-531C-C594-30F1F86A4EA5")
        var noOther = Self.complete
        noOther.services[Self.vendorService]?.removeLast()
        #expect(Self.profile.missingRequirement(in: noOther)
            == "characteristic 3536 not found in service F8083532-849E-531C-C594-30F1F86A4EA5")
    }

    @Test func characteristicLookupIsPerService() {
        let discovered = DiscoveredServices([
            0x180D: [DiscoveredCharacteristic(0x2A37, properties: .notify)],
            0x180F: [DiscoveredCharacteristic(0x2A19, properties: [.read, .notify])],
        ])
        #expect(discovered.characteristic(0x2A19, in: 0x180F)?.properties == [.read, .notify])
        #expect(discovered.characteristic(0x2A19, in: 0x180D) == nil)
        #expect(discovered.characteristics(in: 0x180A) == nil)
    }

    @Test func propertyBitsMatchTheCoreSpec() {
        // Core v5.4 Vol 3 Part G §3.3.1.1 (docs/protocols/att-l2cap.md §ATT).
        let bits: [(CharacteristicProperties, UInt8)] = [
            (.broadcast, 0x01), (.read, 0x02), (.writeWithoutResponse, 0x04), (.write, 0x08),
            (.notify, 0x10), (.indicate, 0x20), (.authenticatedSignedWrites, 0x40), (.extendedProperties, 0x80),
        ]
        for (property, raw) in bits { #expect(property.rawValue == raw) }
        #expect(CharacteristicProperties(rawValue: 0x12) == [.read, .notify])
    }
}
