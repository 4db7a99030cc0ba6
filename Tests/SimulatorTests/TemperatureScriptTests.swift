import Bluetooth
import Clocks
import Testing
import Transmitters
@testable import Simulator

struct TemperatureScriptTests {
    static let excursion = TemperatureScript.Excursion(start: .seconds(55 * 60), duration: .seconds(45 * 60), hundredths: 950)
    static let script = TemperatureScript(excursions: [excursion])

    static func at(_ seconds: Int64) -> MonotonicInstant { .zero + .seconds(seconds) }

    /// (virtual seconds, hundredths of a degree).
    static let expectations: [(seconds: Int64, hundredths: Int)] = [
        (0, 250),                // the compressor cycle: coldest at zero
        (600, 550),              // warmest after 10 minutes
        (55 * 60 - 1, 400),      // 899 s into the 1200 s cycle, falling: 250 + 301 × 300/600
        (55 * 60, 950),          // the excursion starts
        (100 * 60 - 1, 950),     // and lasts 45 minutes
        (100 * 60, 250),         // then the cycle again (phase 0 at 6000 s)
    ]

    @Test(arguments: expectations)
    func followsTheCycleExceptDuringExcursions(expectation: (seconds: Int64, hundredths: Int)) {
        #expect(Self.script.hundredths(at: Self.at(expectation.seconds)) == expectation.hundredths)
    }

    @Test func humidityFallsAsTheFridgeWarmsAndStaysAPercentage() {
        #expect(Self.script.humidityHundredths(at: Self.at(0)) == 5500)
        #expect(Self.script.humidityHundredths(at: Self.at(600)) == 4500)
        #expect(Self.script.humidityHundredths(at: Self.at(55 * 60)) == 5500 - 700 * 1000 / 300)
        let oven = TemperatureScript(excursions: [.init(start: .zero, duration: .seconds(60), hundredths: 9000)])
        #expect(oven.humidityHundredths(at: Self.at(0)) == 0)
    }

    /// The scripted thermometer's adverts decode with the project's BTHome decoder: packet id,
    /// battery, the script's temperature and humidity; three adverts per measurement.
    @Test func theScriptedThermometerAdvertisesTheScript() throws {
        let thermometer = SimulatedThermometer.bthome(script: Self.script)
        #expect(thermometer.advertising.kind == .nonConnectable)
        #expect(thermometer.address == SimulatedThermometer.defaultAddress)
        func decoded(event: UInt64) throws -> BTHomePacket {
            let bytes = try #require(thermometer.advertising.dataForEvent?(event))
            #expect(bytes.count <= 31)
            let ad = try AdvertisingData(bytes)
            #expect(ad.name == "Fridge")
            let serviceData = try #require(ad.serviceData(for: BTHomePacket.serviceUUID))
            return try BTHomePacket(decoding: serviceData, advertiser: thermometer.address.address, key: nil)
        }
        func number(_ packet: BTHomePacket, _ quantity: BTHomeObject.Quantity) -> Double? {
            if case let .number(value)? = packet.first(quantity)?.value { return value }
            return nil
        }
        // Event 3300 is measurement 1100, taken at 3300 s: inside the excursion.
        let warm = try decoded(event: 3300)
        #expect(warm.packetID == UInt8(1100 % 256))
        #expect(number(warm, .temperature) == 9.5)
        #expect(number(warm, .humidity) == Double(5500 - 700 * 1000 / 300) / 100)
        #expect(number(warm, .battery) == 100)
        let repeats = try (3300..<3303).map { try decoded(event: $0).packetID }
        #expect(repeats == [warm.packetID, warm.packetID, warm.packetID])
        #expect(try decoded(event: 3303).packetID == UInt8(1101 % 256))
        // Event 0: the cold start of the cycle.
        #expect(number(try decoded(event: 0), .temperature) == 2.5)
    }
}
