import Bluetooth
import Clocks

/// Ready-made simulated peripherals for tests and `vigil demo`.
public enum SimulatedDevices {
    /// A chest-strap heart-rate monitor: Heart Rate Service 0x180D (Measurement 0x2A37 notify
    /// every second, Body Sensor Location 0x2A38 = chest, Control Point 0x2A39), Battery Service
    /// 0x180F (0x2A19 read+notify, draining 1 % every 10 minutes of virtual time) and Device
    /// Information 0x180A, advertising "Vigil Sim HRM" with 0x180D and 0x180F.
    /// Layouts per docs/protocols/sig-heart-rate.md and sig-common.md (GATT XML definitions).
    ///
    /// With `requiresEncryption`, subscribing to heart rate needs an encrypted link (the CCCD
    /// write answers Insufficient Authentication/Encryption until then).
    public static func heartRateMonitor(
        address: DeviceAddress = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random),
        rssi: Int8 = -55, advertisingInterval: Duration = .milliseconds(100), requiresEncryption: Bool = false,
        securityFactory: SecurityFactory? = nil
    ) -> SimulatedPeripheral {
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)  // LE General Discoverable, BR/EDR Not Supported (CSS Part A §1.3)
        ad.completeName("Vigil Sim HRM")
        ad.uuids16([0x180D, 0x180F])
        ad.appearance(0x0341)  // Heart Rate Sensor: Heart Rate Belt (Assigned Numbers §2.6)
        var scanResponse = AdvertisingData.Builder()
        scanResponse.txPower(4)
        let services = [
            SimulatedService(0x180D, characteristics: [
                SimulatedCharacteristic(0x2A37, properties: .notify, value: .computed(heartRateMeasurement(at:)),
                                        cccdAccess: requiresEncryption ? .encryptionRequired : .open, updateInterval: .seconds(1)),
                SimulatedCharacteristic(0x2A38, properties: .read, value: .stored([0x01])),  // 1 = Chest
                // HRS Control Point: 0x01 resets Energy Expended; anything else is 0x80 Control Point Not Supported.
                SimulatedCharacteristic(0x2A39, properties: .write, writeHandler: { $0 == [0x01] ? nil : 0x80 }),
            ]),
            SimulatedService(0x180F, characteristics: [
                SimulatedCharacteristic(0x2A19, properties: [.read, .notify], value: .computed(batteryLevel(at:)), updateInterval: .seconds(60)),
            ]),
            SimulatedService(0x180A, characteristics: [
                SimulatedCharacteristic(0x2A29, properties: .read, value: .stored(Array("Vigil Simulations".utf8))),
                SimulatedCharacteristic(0x2A24, properties: .read, value: .stored(Array("HRM-1".utf8))),
                SimulatedCharacteristic(0x2A25, properties: .read, value: .stored(Array(String(address.address.value, radix: 16).utf8))),
                SimulatedCharacteristic(0x2A26, properties: .read, value: .stored(Array("1.0.0".utf8))),
            ]),
        ]
        return SimulatedPeripheral(
            address: address,
            advertising: AdvertisingConfiguration(kind: .connectable, interval: advertisingInterval, data: ad.bytes, scanResponse: scanResponse.bytes),
            services: services, rssi: rssi, securityFactory: securityFactory)
    }

    /// A plausible Heart Rate Measurement (HRS 0x2A37) for a moment of virtual time: the rate
    /// drifts between 60 and 90 BPM over two minutes, and the flags cycle each second through
    /// 8- and 16-bit rates, sensor-contact states, Energy Expended and 0–2 RR intervals
    /// (1/1024 s units), so a decoder sees every field combination.
    public static func heartRateMeasurement(at now: MonotonicInstant) -> [UInt8] {
        let second = Int(max(0, now.nanoseconds) / 1_000_000_000)
        let phase = second % 120
        let bpm = 60 + (phase < 60 ? phase : 120 - phase) / 2 + (second * 13) % 3
        let rr = 61_440 / bpm  // 60 s × 1024 / BPM
        func u16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        switch second % 4 {
        case 0:  // u8 rate, contact supported and detected
            return [0b0000_0110, UInt8(bpm)]
        case 1:  // u8 rate, contact detected, one RR interval
            return [0b0001_0110, UInt8(bpm)] + u16(rr)
        case 2:  // u16 rate, no contact feature, Energy Expended (kJ), two RR intervals
            return [0b0001_1001] + u16(bpm) + u16(second / 10) + u16(rr - 7) + u16(rr + 7)
        default:  // u8 rate, contact supported but not detected, one RR interval
            return [0b0001_0100, UInt8(bpm)] + u16(rr)
        }
    }

    /// Battery Level (0x2A19), 0–100 %: 100 at t = 0, one percent less every ten minutes.
    public static func batteryLevel(at now: MonotonicInstant) -> [UInt8] {
        let minutes = max(0, now.nanoseconds) / 60_000_000_000
        return [UInt8(max(0, 100 - minutes / 10))]
    }

    /// A non-connectable beacon that changes its manufacturer data (company 0xFFFF, a 32-bit event
    /// counter) on every event and jitters its RSSI, for scanner and duplicate-filter tests.
    public static func noisyAdvertiser(address: DeviceAddress, interval: Duration = .milliseconds(20), rssi: Int8 = -80,
                                       rssiJitter: Int8 = 6, phase: Duration = .zero) -> SimulatedPeripheral {
        let advertising = AdvertisingConfiguration(
            kind: .nonConnectable, interval: interval, data: [], phase: phase,
            dataForEvent: { event in
                var ad = AdvertisingData.Builder()
                ad.flags(0x04)
                ad.manufacturerData(company: 0xFFFF, (0..<4).map { UInt8(truncatingIfNeeded: event >> (8 * UInt64($0))) })
                return ad.bytes
            },
            rssiJitter: rssiJitter)
        return SimulatedPeripheral(address: address, advertising: advertising, rssi: rssi)
    }
}
