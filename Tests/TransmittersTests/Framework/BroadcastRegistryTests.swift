import Bluetooth
import Testing
@testable import Transmitters

@Suite struct BroadcastRegistryTests {
    @Test func builtInTypes() {
        let registry = BroadcastRegistry.builtIn
        #expect(registry.names == ["bthome", "ruuvi"])
        #expect(registry.type(named: "bthome")?.recognition == .serviceData(BluetoothUUID(0xFCD2)))
        #expect(registry.type(named: "ruuvi")?.recognition == .manufacturerData(company: 0x0499))
        #expect(registry.type(named: "heart-rate") == nil)
        // Names must not collide with the connected types: the appliance looks in both.
        #expect(Set(registry.names).isDisjoint(with: TransmitterRegistry.builtIn.names))
    }

    @Test func unknownTypeNamesTheKnownOnes() {
        #expect(throws: TransmitterConfigurationError.unknownType("bthome2", known: ["bthome", "ruuvi"])) {
            _ = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(typeName: "bthome2"))
        }
    }

    @Test func laterRegistrationReplaces() throws {
        var registry = BroadcastRegistry.builtIn
        registry.register(BroadcastType(name: "bthome", summary: "replacement", declaration: RuuviDecoder.broadcastType.declaration,
                                        decoder: RuuviDecoder.self) { configuration in
            RuuviDecoder(device: configuration.device)
        })
        #expect(registry.names == ["bthome", "ruuvi"])
        #expect(registry.type(named: "bthome")?.summary == "replacement")
        #expect(try registry.makeDecoder(TransmitterConfiguration(typeName: "bthome")) is RuuviDecoder)
    }

    @Test func recognitionPayloads() {
        let address = DeviceAddress(Address(value: 1), type: .public)
        let summary = AdvertisementSummary(address: address, serviceData: [BluetoothUUID(0xFCD2): [0x40]], manufacturerData: [0x0499: [0x05]])
        #expect(BroadcastRecognition.serviceData(BluetoothUUID(0xFCD2)).payload(in: summary) == [0x40])
        #expect(BroadcastRecognition.manufacturerData(company: 0x0499).payload(in: summary) == [0x05])
        #expect(BroadcastRecognition.manufacturerData(company: 0x0059).payload(in: summary) == nil)
        #expect(BroadcastRecognition.manufacturerData(company: 0x0499).eventUUID == BluetoothUUID(0x0499))
        #expect(BroadcastRecognition.manufacturerData(company: 0x0499).description == "manufacturer data of company 0x0499")
    }
}
