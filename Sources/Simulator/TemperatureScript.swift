import Bluetooth
import Clocks
import Transmitters

/// What a simulated fridge thermometer measures over virtual time: the compressor cycle of
/// `SimulatedThermometer.temperatureHundredths(at:)` (2.5–5.5 °C), except during excursions,
/// where the fridge holds a fixed temperature (a door left open, a failed compressor). The soak
/// benchmark scripts one 45-minute excursion above 8 °C to raise the fridge alarm.
public struct TemperatureScript: Sendable, Equatable {
    /// `start ..< start + duration` at `hundredths` of a degree Celsius.
    public struct Excursion: Sendable, Equatable {
        public var start: Duration
        public var duration: Duration
        public var hundredths: Int

        public init(start: Duration, duration: Duration, hundredths: Int) {
            self.start = start
            self.duration = duration
            self.hundredths = hundredths
        }

        public var end: Duration { start + duration }

        public func contains(_ time: Duration) -> Bool { time >= start && time < end }
    }

    public var excursions: [Excursion]

    public init(excursions: [Excursion] = []) { self.excursions = excursions }

    /// Hundredths of a degree Celsius at `time`.
    public func hundredths(at time: MonotonicInstant) -> Int {
        let offset = time - MonotonicInstant.zero
        if let excursion = excursions.first(where: { $0.contains(offset) }) { return excursion.hundredths }
        return SimulatedThermometer.temperatureHundredths(at: time)
    }

    /// Relative humidity in hundredths of a percent, falling as the fridge warms (as
    /// `SimulatedThermometer.humidityHundredths(at:)` does), kept within 0–100 %.
    public func humidityHundredths(at time: MonotonicInstant) -> Int {
        min(10_000, max(0, 5500 - (hundredths(at: time) - 250) * 1000 / 300))
    }
}

extension SimulatedThermometer {
    /// A BTHome v2 fridge thermometer (docs/protocols/bthome.md) whose temperature follows
    /// `script`; otherwise as
    /// `bthome(address:name:key:advertisingInterval:advertisementsPerMeasurement:rssi:)`:
    /// unencrypted, a new measurement every `advertisementsPerMeasurement` advertisements, each
    /// repeated until the next, packet id = measurement number modulo 256.
    public static func bthome(script: TemperatureScript, address: DeviceAddress = defaultAddress, name: String = "Fridge",
                              advertisingInterval: Duration = .seconds(1), advertisementsPerMeasurement: UInt64 = 3,
                              rssi: Int8 = -70) -> SimulatedPeripheral {
        let repeats = max(1, advertisementsPerMeasurement)
        let advertising = AdvertisingConfiguration(
            kind: .nonConnectable, interval: advertisingInterval, data: [],
            dataForEvent: { event in
                let measurement = event / repeats
                let time = MonotonicInstant.zero + advertisingInterval * Int(clamping: measurement * repeats)
                return advertisingData(measurement: measurement, at: time, script: script, name: name)
            })
        return SimulatedPeripheral(address: address, advertising: advertising, rssi: rssi)
    }

    /// The advertising data of one scripted measurement: packet id, battery, temperature and
    /// humidity in BTHome service data (UUID 0xFCD2), then the name and flags.
    public static func advertisingData(measurement: UInt64, at time: MonotonicInstant, script: TemperatureScript,
                                       name: String) -> [UInt8] {
        let objects = [
            BTHomeObject(id: 0x00, value: .number(Double(measurement % 256))),
            BTHomeObject(id: 0x01, value: .number(Double(batteryPercent(at: time)))),
            BTHomeObject(id: 0x02, value: .number(Double(script.hundredths(at: time)) / 100)),
            BTHomeObject(id: 0x03, value: .number(Double(script.humidityHundredths(at: time)) / 100)),
        ]
        // Every value above is in range for its field, and no key means no encryption.
        let serviceData = BTHomePacket.serviceData(objects, advertiser: defaultAddress.address, key: nil, counter: 0) ?? []
        var ad = AdvertisingData.Builder()
        ad.serviceData16(0xFCD2, serviceData)
        if ad.bytes.count + 2 + name.utf8.count <= 31 { ad.completeName(name) }
        if ad.bytes.count + 3 <= 31 { ad.flags(0x06) }
        return ad.bytes
    }
}
