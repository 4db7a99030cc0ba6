import Bluetooth
import Clocks
import Transmitters

/// A simulated insulin-fridge thermometer for `vigil demo` and tests: a non-connectable BTHome v2
/// broadcaster (docs/protocols/bthome.md) that never takes a connection, like the real ones.
///
/// It advertises once per `advertisingInterval`, and takes a new measurement every
/// `advertisementsPerMeasurement` advertisements: real BTHome devices repeat each packet to
/// survive collisions, so a receiver sees the same packet id several times and must drop the
/// repeats. Each measurement carries packet id (0x00), battery (0x01), temperature (0x02) and
/// humidity (0x03), plain or AES-CCM encrypted with `key` (the counter is the measurement
/// number, so it only grows).
///
/// Values follow a fridge's compressor cycle in virtual time: 2.5 → 5.5 → 2.5 °C over 20
/// minutes (a triangle), humidity 45–55 % against it, battery from 100 % down 1 % an hour.
public enum SimulatedThermometer {
    public static let defaultAddress = DeviceAddress(Address(value: 0xC0_FF_EE_00_00_04), type: .random)

    public static func bthome(address: DeviceAddress = defaultAddress, name: String = "Fridge", key: [UInt8]? = nil,
                              advertisingInterval: Duration = .seconds(1), advertisementsPerMeasurement: UInt64 = 3,
                              rssi: Int8 = -70) -> SimulatedPeripheral {
        let repeats = max(1, advertisementsPerMeasurement)
        let advertising = AdvertisingConfiguration(
            kind: .nonConnectable, interval: advertisingInterval, data: [],
            dataForEvent: { event in
                let measurement = event / repeats
                return advertisingData(measurement: measurement, at: .zero + advertisingInterval * Int(clamping: measurement * repeats),
                                       address: address.address, name: name, key: key)
            })
        return SimulatedPeripheral(address: address, advertising: advertising, rssi: rssi)
    }

    /// The advertising data of one measurement: service data first, then the name and the flags
    /// if they fit in the 31 bytes of a legacy PDU (an encrypted packet leaves room for one).
    public static func advertisingData(measurement: UInt64, at time: MonotonicInstant, address: Address, name: String,
                                       key: [UInt8]?) -> [UInt8] {
        let objects = [
            BTHomeObject(id: 0x00, value: .number(Double(measurement % 256))),
            BTHomeObject(id: 0x01, value: .number(Double(batteryPercent(at: time)))),
            BTHomeObject(id: 0x02, value: .number(Double(temperatureHundredths(at: time)) / 100)),
            BTHomeObject(id: 0x03, value: .number(Double(humidityHundredths(at: time)) / 100)),
        ]
        // Every value above is in range for its field, and a key is 16 bytes by contract.
        let serviceData = BTHomePacket.serviceData(objects, advertiser: address, key: key, counter: UInt32(truncatingIfNeeded: measurement)) ?? []
        var ad = AdvertisingData.Builder()
        ad.serviceData16(0xFCD2, serviceData)
        // The name (for `vigil scan` and name matching) before the flags, which a
        // non-connectable advertiser may leave out (CSS Part A §1.3 requires them only of
        // discoverable devices).
        if ad.bytes.count + 2 + name.utf8.count <= 31 { ad.completeName(name) }
        if ad.bytes.count + 3 <= 31 { ad.flags(0x06) }  // LE General Discoverable, BR/EDR not supported
        return ad.bytes
    }

    /// Temperature in hundredths of a degree: a 20-minute triangle between 2.50 and 5.50 °C.
    public static func temperatureHundredths(at time: MonotonicInstant) -> Int {
        let phase = seconds(time) % 1200
        return 250 + (phase < 600 ? phase : 1200 - phase) * 300 / 600
    }

    /// Relative humidity in hundredths of a percent: 55.00 % when coldest, 45.00 % when warmest.
    public static func humidityHundredths(at time: MonotonicInstant) -> Int {
        5500 - (temperatureHundredths(at: time) - 250) * 1000 / 300
    }

    public static func batteryPercent(at time: MonotonicInstant) -> Int { max(0, 100 - seconds(time) / 3600) }

    private static func seconds(_ time: MonotonicInstant) -> Int { Int(max(0, time.nanoseconds) / 1_000_000_000) }
}
