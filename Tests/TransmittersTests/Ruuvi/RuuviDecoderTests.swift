import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct RuuviDecoderTests {
    static let t0 = MonotonicInstant(nanoseconds: 2_000_000_000)
    static let address = DeviceAddress(Address(value: 0xCB_B8_33_4C_88_4F), type: .random)
    static let company = RuuviDataFormat5.companyIdentifier

    func advertisement(_ data: [UInt8]) -> AdvertisementSummary {
        AdvertisementSummary(address: Self.address, manufacturerData: [Self.company: data])
    }

    /// The specification vector with another temperature, humidity and sequence number.
    func payload(temperature: UInt16 = 0x12FC, humidity: UInt16 = 0x5394, sequence: UInt16 = 0x00CD) -> [UInt8] {
        var bytes = RuuviDataFormat5Tests.valid
        bytes[1] = UInt8(temperature >> 8); bytes[2] = UInt8(truncatingIfNeeded: temperature)
        bytes[3] = UInt8(humidity >> 8); bytes[4] = UInt8(truncatingIfNeeded: humidity)
        bytes[16] = UInt8(sequence >> 8); bytes[17] = UInt8(truncatingIfNeeded: sequence)
        return bytes
    }

    func readings(_ celsius: Double, _ humidity: Double, at time: MonotonicInstant) -> [TransmitterEvent] {
        [.reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: celsius)), time: .monotonic(time))),
         .reading(Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: humidity)!), time: .monotonic(time)))]
    }

    @Test func recognisesOnlyRuuviManufacturerData() {
        let decoder = RuuviDecoder(device: "fridge")
        #expect(decoder.recognises(advertisement(payload())))
        #expect(!decoder.recognises(AdvertisementSummary(address: Self.address, manufacturerData: [0x004C: payload()])))
        #expect(!decoder.recognises(AdvertisementSummary(address: Self.address, serviceData: [BluetoothUUID(0x0499): payload()])))
    }

    @Test func specificationVectorBecomesReadingsAndRepeatsAreDropped() {
        var decoder = RuuviDecoder(device: "fridge")
        #expect(decoder.decode(advertisement(payload()), at: Self.t0) == readings(24.3, 53.49, at: Self.t0))
        #expect(decoder.lastSequence == 205)
        // The tag sends each measurement several times: the same sequence number is a repeat.
        #expect(decoder.decode(advertisement(payload()), at: Self.t0 + .seconds(1)) == [])
        // 0x0384 = 900 × 0.005 = 4.5 °C; 0x4E20 = 20000 × 0.0025 = 50 %.
        #expect(decoder.decode(advertisement(payload(temperature: 0x0384, humidity: 0x4E20, sequence: 206)), at: Self.t0 + .seconds(2))
            == readings(4.5, 50, at: Self.t0 + .seconds(2)))
        // Below zero, two's complement: 0xFC7C = −900 → −4.5 °C.
        #expect(decoder.decode(advertisement(payload(temperature: 0xFC7C, sequence: 207)), at: Self.t0)
            == readings(-4.5, 53.49, at: Self.t0))
    }

    @Test func notAvailableFieldsGiveNoReadingAndNoDeduplication() {
        var decoder = RuuviDecoder(device: "fridge")
        let humidityOnly = payload(temperature: 0x8000, sequence: 0xFFFF)
        let one = [TransmitterEvent.reading(Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 53.49)!), time: .monotonic(Self.t0)))]
        #expect(decoder.decode(advertisement(humidityOnly), at: Self.t0) == one)
        #expect(decoder.decode(advertisement(humidityOnly), at: Self.t0) == one, "no sequence number: nothing to de-duplicate on")
        #expect(decoder.decode(advertisement(payload(temperature: 0x8000, humidity: 0xFFFF, sequence: 1)), at: Self.t0) == [])
    }

    /// The format's resolution survives: 0x5395 = 21397 steps of 0.0025 % = 53.4925 %, and
    /// 0x12FD = 4861 steps of 0.005 °C = 24.305 °C (dataformat_05.md field table), each the
    /// Double nearest that decimal, printed as it.
    @Test func resolutionIsKept() throws {
        var decoder = RuuviDecoder(device: "fridge")
        let events = decoder.decode(advertisement(payload(temperature: 0x12FD, humidity: 0x5395)), at: Self.t0)
        #expect(events == readings(24.305, 53.4925, at: Self.t0))
        guard case let .reading(humidity) = events.last, case let .humidity(value) = humidity.value else {
            Issue.record("expected a humidity reading, got \(events)")
            return
        }
        #expect(value.description == "53.4925 %")
        #expect(Temperature(degreesCelsius: 24.305).description == "24.305 °C")
    }

    @Test func failedHumiditySensorIsReportedNotClamped() {
        var decoder = RuuviDecoder(device: "fridge")
        // 0xA000 = 40960 × 0.0025 = 102.4 %.
        let events = decoder.decode(advertisement(payload(humidity: 0xA000)), at: Self.t0)
        #expect(events == [
            .reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 24.3)), time: .monotonic(Self.t0))),
            .malformedValue(BluetoothUUID(0x0499), reason: "Ruuvi data format 5: humidity 102.4 % is out of range (failed sensor?)"),
        ])
    }

    @Test func malformedDataIsReported() {
        var decoder = RuuviDecoder(device: "fridge")
        #expect(decoder.decode(advertisement([0x03, 0x01]), at: Self.t0)
            == [.malformedValue(BluetoothUUID(0x0499), reason: "Ruuvi data format 5: invalid Ruuvi data format (only 5 is supported): 3 in 03 01")])
        #expect(decoder.decode(advertisement([0x05, 0x01]), at: Self.t0)
            == [.malformedValue(BluetoothUUID(0x0499), reason: "Ruuvi data format 5: truncated at Ruuvi data format 5: needed 24 byte(s), 2 left in 05 01")])
    }

    @Test func watchdogOnTheVirtualClock() {
        var decoder = RuuviDecoder(device: "fridge", configuration: .init(noDataTimeout: .seconds(60)))
        decoder.start(at: Self.t0)
        #expect(decoder.nextDeadline == Self.t0 + .seconds(60))
        // Never heard at all: still reported.
        #expect(decoder.handleDeadline(at: Self.t0 + .seconds(60)) == [.noData(since: Self.t0, duration: .seconds(60))])
        #expect(decoder.nextDeadline == nil)
        _ = decoder.decode(advertisement(payload()), at: Self.t0 + .seconds(90))
        #expect(decoder.nextDeadline == Self.t0 + .seconds(150))
    }

    @Test func registryEntry() throws {
        let decoder = try #require(try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(parsing: "ruuvi fridge no-data-timeout=2m")) as? RuuviDecoder)
        #expect(decoder.device == "fridge")
        #expect(decoder.configuration.noDataTimeout == .seconds(120))
        #expect(throws: TransmitterConfigurationError.unknownOption("key", type: "ruuvi")) {
            _ = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(parsing: "ruuvi key=00"))
        }
    }
}
