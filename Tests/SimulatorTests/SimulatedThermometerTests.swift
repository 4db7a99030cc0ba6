import Bluetooth
import Clocks
import Testing
import Transmitters
import Wire
@testable import Simulator

@Suite struct SimulatedThermometerTests {
    static let key = [UInt8](hex: "231d39c1d7cc1ab1aee224cd096db932")

    func packet(_ peripheral: SimulatedPeripheral, event: UInt64, key: [UInt8]? = nil) throws -> (AdvertisingData, BTHomePacket) {
        let bytes = try #require(peripheral.advertising.dataForEvent?(event))
        #expect(bytes.count <= 31, "a legacy advertising PDU holds 31 bytes")
        let ad = try AdvertisingData(bytes)
        let serviceData = try #require(ad.serviceData(for: BTHomePacket.serviceUUID))
        return (ad, try BTHomePacket(decoding: serviceData, advertiser: peripheral.address.address, key: key))
    }

    func number(_ packet: BTHomePacket, _ quantity: BTHomeObject.Quantity) -> Double? {
        if case let .number(value)? = packet.first(quantity)?.value { return value }
        return nil
    }

    @Test func advertisesPlainBTHomeWithoutAcceptingConnections() throws {
        let thermometer = SimulatedThermometer.bthome()
        #expect(thermometer.advertising.kind == .nonConnectable)
        #expect(thermometer.advertising.interval == .seconds(1))
        let (ad, first) = try packet(thermometer, event: 0)
        #expect(ad.name == "Fridge")
        #expect(ad.flags == 0x06)
        #expect(!first.deviceInformation.isEncrypted)
        #expect(first.packetID == 0)
        #expect(number(first, .battery) == 100)
        #expect(number(first, .temperature) == 2.5)   // the coldest point of the cycle at t = 0
        #expect(number(first, .humidity) == 55)
    }

    @Test func eachMeasurementIsRepeatedThenTheNextHasANewPacketID() throws {
        let thermometer = SimulatedThermometer.bthome()
        let ids = try (0..<7).map { try packet(thermometer, event: $0).1.packetID }
        #expect(ids == [0, 0, 0, 1, 1, 1, 2])
        // Measurement 100 is taken at 300 s: 2.50 + 300/600 × 3 = 4.00 °C, 50.00 %.
        let later = try packet(thermometer, event: 300).1
        #expect(later.packetID == 100)
        #expect(number(later, .temperature) == 4.0)
        #expect(number(later, .humidity) == 50)
    }

    @Test func encryptedWithTheKeyAndAGrowingCounter() throws {
        let thermometer = SimulatedThermometer.bthome(key: Self.key)
        let (ad, first) = try packet(thermometer, event: 0, key: Self.key)
        #expect(first.deviceInformation.isEncrypted)
        #expect(first.counter == 0)
        #expect(ad.name == "Fridge", "the name still fits once the flags are left out")
        #expect(ad.flags == nil)
        #expect(try packet(thermometer, event: 9, key: Self.key).1.counter == 3)
        #expect(throws: BTHomeError.noKey) { _ = try packet(thermometer, event: 0) }
    }

    @Test func theDecoderReadsTheWholeDay() throws {
        // Every measurement of a virtual day decodes to in-range readings, through the real decoder.
        let thermometer = SimulatedThermometer.bthome(key: Self.key, advertisementsPerMeasurement: 1)
        var decoder = BTHomeDecoder(device: "fridge", configuration: .init(key: Self.key))
        var readings = 0
        for event in stride(from: UInt64(0), to: 86_400, by: 97) {
            let bytes = try #require(thermometer.advertising.dataForEvent?(event))
            let summary = AdvertisementSummary(address: thermometer.address, advertising: try AdvertisingData(bytes))
            for case let .reading(reading) in decoder.decode(summary, at: MonotonicInstant(nanoseconds: Int64(event) * 1_000_000_000)) {
                if case let .temperature(t) = reading.value { #expect((2.5...5.5).contains(t.degreesCelsius)) }
                readings += 1
            }
        }
        #expect(readings == 2 * 891)  // temperature and humidity for each of the 891 samples
    }

    @Test(arguments: [0, 60, 599, 600, 601, 1199, 1200, 7200])
    func valuesStayInTheirRanges(seconds: Int64) {
        let time = MonotonicInstant(nanoseconds: seconds * 1_000_000_000)
        #expect((250...550).contains(SimulatedThermometer.temperatureHundredths(at: time)))
        #expect((4500...5500).contains(SimulatedThermometer.humidityHundredths(at: time)))
        #expect((0...100).contains(SimulatedThermometer.batteryPercent(at: time)))
    }
}
