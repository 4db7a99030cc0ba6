import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The BTHome decoder on a virtual clock. Encrypted packets are built with
/// `BTHomePacket.serviceData`, whose output equals the independent Python vector
/// (BTHomePacketTests.encoderReproducesThePythonVector).
@Suite struct BTHomeDecoderTests {
    static let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let mac = Address(value: 0x54_48_E6_8F_80_A5)
    static let address = DeviceAddress(mac, type: .public)
    static let key = [UInt8](hex: "231d39c1d7cc1ab1aee224cd096db932")
    static let uuid = BTHomePacket.serviceUUID

    func advertisement(_ data: [UInt8]) -> AdvertisementSummary {
        AdvertisementSummary(address: Self.address, name: "fridge", serviceData: [Self.uuid: data])
    }

    func objects(packetID: UInt8, celsius: Double = 4.5, humidity: Double = 50.55, battery: Double = 97) -> [BTHomeObject] {
        [BTHomeObject(id: 0x00, value: .number(Double(packetID))), BTHomeObject(id: 0x01, value: .number(battery)),
         BTHomeObject(id: 0x02, value: .number(celsius)), BTHomeObject(id: 0x03, value: .number(humidity))]
    }

    func sealed(counter: UInt32, packetID: UInt8 = 1, key: [UInt8] = key) -> AdvertisementSummary {
        advertisement(BTHomePacket.serviceData(objects(packetID: packetID), advertiser: Self.mac, key: key, counter: counter)!)
    }

    func plain(packetID: UInt8, celsius: Double = 4.5) -> AdvertisementSummary {
        advertisement(BTHomePacket.serviceData(objects(packetID: packetID, celsius: celsius), advertiser: Self.mac)!)
    }

    func expectedReadings(celsius: Double = 4.5, at time: MonotonicInstant) -> [TransmitterEvent] {
        [.reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: celsius)), time: .monotonic(time))),
         .reading(Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 50.55)!), time: .monotonic(time))),  // 0.01 % kept
         .info(TransmitterInfo(battery: Percent(97)))]
    }

    @Test func recognisesOnlyItsServiceData() {
        let decoder = BTHomeDecoder(device: "fridge")
        #expect(decoder.recognises(plain(packetID: 1)))
        #expect(!decoder.recognises(AdvertisementSummary(address: Self.address, serviceData: [BluetoothUUID(0x181C): [0x40]])))
        #expect(!decoder.recognises(AdvertisementSummary(address: Self.address, manufacturerData: [0xFCD2: [0x40]])))
        #expect(BTHomeDecoder.recognition == .serviceData(BluetoothUUID(0xFCD2)))
    }

    @Test func plainPacketsBecomeReadingsAndDuplicatesAreDropped() {
        var decoder = BTHomeDecoder(device: "fridge")
        #expect(decoder.decode(plain(packetID: 1), at: Self.t0) == expectedReadings(at: Self.t0))
        // The same packet id again (a device repeats each packet): nothing.
        #expect(decoder.decode(plain(packetID: 1, celsius: 9), at: Self.t0 + .seconds(1)) == [])
        #expect(decoder.decode(plain(packetID: 2, celsius: -1.25), at: Self.t0 + .seconds(2))
            == expectedReadings(celsius: -1.25, at: Self.t0 + .seconds(2)))
        #expect(decoder.lastPacketID == 2)
        // Not recognised: not ours to judge.
        #expect(decoder.decode(AdvertisementSummary(address: Self.address), at: Self.t0) == [])
    }

    @Test func packetsWithoutAPacketIDAreNeverDeduplicated() {
        var decoder = BTHomeDecoder(device: "fridge")
        let data = [UInt8](hex: "40 02C201")  // 4.50 °C
        let one = [TransmitterEvent.reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.5)), time: .monotonic(Self.t0)))]
        #expect(decoder.decode(advertisement(data), at: Self.t0) == one)
        #expect(decoder.decode(advertisement(data), at: Self.t0) == one)
    }

    @Test func encryptedWithTheRightKey() {
        var decoder = BTHomeDecoder(device: "fridge", configuration: .init(key: Self.key))
        #expect(decoder.decode(sealed(counter: 500), at: Self.t0) == expectedReadings(at: Self.t0))
        #expect(decoder.lastCounter == 500)
        // Same counter: a repeat (or a replay of the same packet), nothing.
        #expect(decoder.decode(sealed(counter: 500, packetID: 2), at: Self.t0) == [])
        #expect(decoder.decode(sealed(counter: 501, packetID: 2), at: Self.t0) == expectedReadings(at: Self.t0))
    }

    @Test func counterRollbackIsRefusedUnlessTheDeviceRestarted() {
        var decoder = BTHomeDecoder(device: "fridge", configuration: .init(key: Self.key))
        _ = decoder.decode(sealed(counter: 1000), at: Self.t0)
        let replay = decoder.decode(sealed(counter: 999, packetID: 7), at: Self.t0)
        #expect(replay == [.malformedValue(Self.uuid, reason: "BTHome: counter went back from 1000 to 999: a replayed advertisement, refused")])
        #expect(decoder.decode(sealed(counter: 100, packetID: 8), at: Self.t0).count == 1, "100 is not a restart")
        #expect(decoder.lastCounter == 1000)
        // Below 100: the device restarted and counts from zero again.
        #expect(decoder.decode(sealed(counter: 3, packetID: 9), at: Self.t0) == expectedReadings(at: Self.t0))
        #expect(decoder.lastCounter == 3)
        #expect(decoder.decode(sealed(counter: 2, packetID: 10), at: Self.t0) == expectedReadings(at: Self.t0),
                "still below the limit: treated as another restart")
    }

    @Test func wrongKeyIsReportedOnceUntilAPacketIsAccepted() {
        var wrong = Self.key
        wrong[3] ^= 0x10
        var decoder = BTHomeDecoder(device: "fridge", configuration: .init(key: wrong))
        let reason = "BTHome: the advertisement does not authenticate with the configured key (wrong key?)"
        #expect(decoder.decode(sealed(counter: 1), at: Self.t0) == [.pairingFailed(reason: reason)])
        #expect(decoder.decode(sealed(counter: 2), at: Self.t0) == [])
        #expect(decoder.keyProblemReported)
        // A packet sealed with our (wrong) key is accepted, and the next failure reported again.
        #expect(decoder.decode(sealed(counter: 3, key: wrong), at: Self.t0) == expectedReadings(at: Self.t0))
        #expect(decoder.decode(sealed(counter: 4), at: Self.t0) == [.pairingFailed(reason: reason)])
    }

    @Test func keyMismatchesBetweenConfigurationAndDevice() {
        var noKey = BTHomeDecoder(device: "fridge")
        #expect(noKey.decode(sealed(counter: 1), at: Self.t0)
            == [.pairingFailed(reason: "BTHome: the advertisement is encrypted and no key is configured")])
        var keyed = BTHomeDecoder(device: "fridge", configuration: .init(key: Self.key))
        // Plain values from a device we expect to encrypt could come from anyone.
        #expect(keyed.decode(plain(packetID: 1), at: Self.t0)
            == [.pairingFailed(reason: "BTHome: a key is configured, so an unencrypted advertisement is not trusted")])
        #expect(keyed.nextDeadline == nil, "no readings, so nothing armed the watchdog")
    }

    @Test func malformedAndOutOfRangeValuesAreReported() {
        var decoder = BTHomeDecoder(device: "fridge")
        #expect(decoder.decode(advertisement([0x40, 0x02, 0xCA]), at: Self.t0)
            == [.malformedValue(Self.uuid, reason: "BTHome: truncated at object value: needed 2 byte(s), 1 left in 40 02 ca")])
        #expect(decoder.decode(advertisement([0x20, 0x02, 0xCA, 0x09]), at: Self.t0)
            == [.malformedValue(Self.uuid, reason: "BTHome: BTHome version 1; only version 2 is supported in 20 02 ca 09")])
        // Humidity 101 % (0x03 0x2774 = 10100) and battery 150 %: refused, temperature kept.
        let events = decoder.decode(advertisement([UInt8](hex: "40 0196 02C201 037427")), at: Self.t0)
        #expect(events == [
            .reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.5)), time: .monotonic(Self.t0))),
            .malformedValue(Self.uuid, reason: "BTHome: humidity 101.0 % is out of range"),
            .malformedValue(Self.uuid, reason: "BTHome: battery 150 % is out of range"),
        ])
    }

    @Test func unknownObjectKeepsTheReadingsBeforeIt() {
        var decoder = BTHomeDecoder(device: "fridge")
        let events = decoder.decode(advertisement([UInt8](hex: "40 02C201 06 0102 03BF13")), at: Self.t0)
        #expect(events == [
            .reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.5)), time: .monotonic(Self.t0))),
            .malformedValue(Self.uuid, reason: "BTHome: unknown object id 0x06: its size is unknown, so the last 6 byte(s) were not read"),
        ])
    }

    @Test func otherTemperatureIDsAndTheOneByteHumidity() {
        var decoder = BTHomeDecoder(device: "fridge")
        // Shelly BLU H&T style: 0x2E humidity (u8), 0x45 temperature (0.1 °C).
        let events = decoder.decode(advertisement([UInt8](hex: "40 2E2A 452D00")), at: Self.t0)
        #expect(events == [
            .reading(Reading(device: "fridge", value: .temperature(Temperature(degreesCelsius: 4.5)), time: .monotonic(Self.t0))),
            .reading(Reading(device: "fridge", value: .humidity(RelativeHumidity(percent: 42)!), time: .monotonic(Self.t0))),
        ])
    }

    @Test func watchdogOnTheVirtualClock() {
        var decoder = BTHomeDecoder(device: "fridge", configuration: .init(noDataTimeout: .seconds(300)))
        #expect(decoder.nextDeadline == nil)
        decoder.start(at: Self.t0)
        #expect(decoder.nextDeadline == Self.t0 + .seconds(300))
        #expect(decoder.handleDeadline(at: Self.t0 + .seconds(299)) == [])
        let t1 = Self.t0 + .seconds(200)
        _ = decoder.decode(plain(packetID: 1), at: t1)
        #expect(decoder.nextDeadline == t1 + .seconds(300))
        // A duplicate is not news and does not feed the watchdog.
        _ = decoder.decode(plain(packetID: 1), at: t1 + .seconds(100))
        let deadline = decoder.nextDeadline!
        #expect(deadline == t1 + .seconds(300))
        #expect(decoder.handleDeadline(at: deadline) == [.noData(since: t1, duration: .seconds(300))])
        #expect(decoder.nextDeadline == nil, "reported once")
        #expect(decoder.handleDeadline(at: deadline + .seconds(600)) == [])
        _ = decoder.decode(plain(packetID: 2), at: deadline + .seconds(700))
        #expect(decoder.nextDeadline == deadline + .seconds(1000), "a reading re-arms it")
    }

    @Test func registryEntry() throws {
        let registry = BroadcastRegistry.builtIn
        let decoder = try registry.makeDecoder(TransmitterConfiguration(parsing: "bthome fridge key=231D39C1D7CC1AB1AEE224CD096DB932 no-data-timeout=15m"))
        let bthome = try #require(decoder as? BTHomeDecoder)
        #expect(bthome.device == "fridge")
        #expect(bthome.configuration == .init(key: Self.key, noDataTimeout: .seconds(900)))
        let plain = try #require(try registry.makeDecoder(TransmitterConfiguration(parsing: "bthome")) as? BTHomeDecoder)
        #expect(plain.configuration == .init(key: nil, noDataTimeout: .seconds(600)))
        #expect(plain.device == "bthome")
    }

    @Test(arguments: [
        ("bthome key=231d39c1d7cc1ab1aee224cd096db9", TransmitterConfigurationError.invalidOption("key", value: "(30 characters)", expected: "32 hex digits (the device's 16-byte bind key)")),
        ("bthome key=231d39c1d7cc1ab1aee224cd096db93g", .invalidOption("key", value: "(32 characters)", expected: "32 hex digits (the device's 16-byte bind key)")),
        ("bthome key=231d39c1-7cc1ab1aee224cd096db932", .invalidOption("key", value: "(32 characters)", expected: "32 hex digits (the device's 16-byte bind key)")),
        ("bthome bindkey=00", .unknownOption("bindkey", type: "bthome")),
    ])
    func badConfigurationIsRefused(line: String, error: TransmitterConfigurationError) {
        #expect(throws: error) { _ = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(parsing: line)) }
    }
}
