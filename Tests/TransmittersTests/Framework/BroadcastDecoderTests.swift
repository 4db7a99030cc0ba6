import Bluetooth
import Clocks
import Readings
import Testing
@testable import Transmitters

@Suite struct BroadcastDecoderTests {
    static let ours = DeviceAddress(Address(value: 0xC4_11_22_33_44_66), type: .random)
    static let neighbour = DeviceAddress(Address(value: 0xC4_11_22_33_44_77), type: .random)
    static let bthomeData: [BluetoothUUID: [UInt8]] = [BTHomePacket.serviceUUID: [0x40, 0x02, 0xC2, 0x01]]

    func ad(_ address: DeviceAddress, name: String? = "Fridge", data: [BluetoothUUID: [UInt8]] = bthomeData) -> AdvertisementSummary {
        AdvertisementSummary(address: address, name: name, serviceData: data)
    }

    @Test func recognisedDataIsRequiredWhateverElseMatches() {
        let decoder = BTHomeDecoder(device: "fridge")
        let other = ad(Self.ours, data: [BluetoothUUID(0x181C): [0x40]])  // BTHome v1, not ours
        #expect(!decoder.matches(other, remembered: Self.ours))
        #expect(!decoder.matches(other, remembered: nil, configuredAddress: Self.ours.address))
        #expect(!decoder.matches(other, remembered: nil))
    }

    @Test func configuredThenRememberedThenNameThenAnyone() {
        let decoder = BTHomeDecoder(device: "fridge")
        // A configured address wins over a remembered one (the configuration changed).
        #expect(decoder.matches(ad(Self.neighbour), remembered: Self.ours, configuredAddress: Self.neighbour.address))
        #expect(!decoder.matches(ad(Self.ours), remembered: Self.ours, configuredAddress: Self.neighbour.address))
        // Remembered: that peer only, address type included.
        #expect(decoder.matches(ad(Self.ours, name: nil), remembered: Self.ours, namePrefix: "Kitchen"))
        #expect(!decoder.matches(ad(Self.neighbour), remembered: Self.ours))
        #expect(!decoder.matches(ad(DeviceAddress(Self.ours.address, type: .public)), remembered: Self.ours))
        // Not yet remembered: by name prefix, or anyone with the data.
        #expect(decoder.matches(ad(Self.neighbour, name: "Fridge 2"), remembered: nil, namePrefix: "Fridge"))
        #expect(!decoder.matches(ad(Self.neighbour, name: "Freezer"), remembered: nil, namePrefix: "Fridge"))
        #expect(!decoder.matches(ad(Self.neighbour, name: nil), remembered: nil, namePrefix: "Fridge"))
        #expect(decoder.matches(ad(Self.neighbour, name: nil), remembered: nil))
    }

    @Test func readingsAreWhatMakeAnAddressWorthRemembering() {
        let reading = TransmitterEvent.reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4)), time: .monotonic(.zero)))
        #expect([reading].containsReading)
        #expect([.info(TransmitterInfo(battery: Percent(50))), reading].containsReading)
        #expect(![TransmitterEvent.pairingFailed(reason: "wrong key"), .info(TransmitterInfo())].containsReading)
        #expect(![TransmitterEvent]().containsReading)
    }

    @Test func existentialDecodersWork() throws {
        var decoders: [any BroadcastDecoder] = [BTHomeDecoder(device: "a"), RuuviDecoder(device: "b")]
        #expect(decoders.map(\.recognition) == [.serviceData(BTHomePacket.serviceUUID), .manufacturerData(company: 0x0499)])
        for index in decoders.indices { decoders[index].start(at: .zero) }
        #expect(decoders.map(\.nextDeadline) == [.zero + .seconds(600), .zero + .seconds(600)])
        let events = decoders[0].decode(ad(Self.ours), at: .zero + .seconds(1))
        #expect(events.containsReading)
        #expect(decoders[1].decode(ad(Self.ours), at: .zero) == [], "not Ruuvi data")
    }
}
