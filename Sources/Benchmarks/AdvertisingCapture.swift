import Bluetooth
import HCI
import Wire

/// Writes the benchmark's btsnoop capture (datalink 1002): LE Advertising Report events as a
/// crowded bedroom delivers them — Ruuvi tags, Apple devices, BTHome sensors, heart-rate
/// straps, Nordic UART gadgets, beacons — one report per event, ~10 % as LE Extended
/// Advertising Reports (subevent 0x0D) the way Bumble's controller sends them.
///
/// Payload layouts follow the public formats: Ruuvi RAWv2 (docs.ruuvi.com, data format 5),
/// Apple iBeacon (Apple "Proximity Beacon Specification" r1), BTHome v2 (bthome.io/format),
/// AD types from the Core Specification Supplement Part A. Deterministic: a seeded SplitMix64.
struct AdvertisingCapture {
    /// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, reproducible across runs.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in byte() } }
    }

    /// What the generator put in, to cross-check the decoder's totals.
    struct Expected: Equatable {
        var reports = 0
        var extended = 0
        var structures = 0
        var nameBytes = 0
        var uuids = 0
        var serviceData = 0
        var manufacturerData = 0
    }

    static let deviceCount = 500
    /// btsnoop time of the first record: 2026-01-01 in microseconds since the Unix epoch.
    static let startMicroseconds: Int64 = 1_767_225_600_000_000

    /// Builds the whole file in memory (about 70 bytes a report).
    static func make(count: Int, seed: UInt64 = 0x5EED_AD5) -> (bytes: [UInt8], expected: Expected) {
        var random = Random(state: seed)
        let devices = (0..<deviceCount).map { Device(index: $0, random: &random) }
        var w = ByteWriter(capacity: 16 + count * 80)
        w.write(contentsOf: BTSnoop.fileHeader())
        var expected = Expected()
        var timestamp = startMicroseconds
        for n in 0..<count {
            let device = devices[random.below(devices.count)]
            let (ad, shape) = device.advertisingData(sequence: UInt32(truncatingIfNeeded: n), random: &random)
            // Weak signals dominate a real scan; 127 ("not available") shows up now and then.
            let rssi: Int8? = random.below(200) == 0 ? nil : Int8(-30 - random.below(70))
            let extended = random.below(10) == 0
            let event = extended
                ? extendedReportEvent(kind: device.kind, address: device.address, rssi: rssi, data: ad)
                : HCI.AdvertisingReport(kind: device.kind, address: device.address, rssi: rssi, data: ad[...]).legacyEventBytes
            BTSnoop.encode([HCI.PacketType.event.rawValue] + event, direction: .received, timestampMicroseconds: timestamp, into: &w)
            timestamp += Int64(50 + random.below(400))
            expected.reports += 1
            expected.extended += extended ? 1 : 0
            expected.structures += shape.structures
            expected.nameBytes += shape.nameBytes
            expected.uuids += shape.uuids
            expected.serviceData += shape.serviceData
            expected.manufacturerData += shape.manufacturerData
        }
        return (w.bytes, expected)
    }

    /// LE Extended Advertising Report, one report (Core v5.4 Vol 4 Part E §7.7.65.13):
    /// Event_Type(2) Address_Type Address(6) Primary_PHY Secondary_PHY Advertising_SID TX_Power
    /// RSSI Periodic_Advertising_Interval(2) Direct_Address_Type Direct_Address(6) Data_Length Data.
    static func extendedReportEvent(kind: HCI.AdvertisingReport.Kind, address: DeviceAddress, rssi: Int8?, data: [UInt8]) -> [UInt8] {
        // Event_Type bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU.
        let properties: UInt16 = switch kind {
        case .connectableUndirected: 0b1_0011
        case .connectableDirected: 0b1_0101
        case .scannableUndirected: 0b1_0010
        case .nonConnectable: 0b1_0000
        case .scanResponse: 0b1_1011
        }
        var w = ByteWriter(capacity: 27 + data.count)
        w.write(HCI.Event.Code.leMeta)
        w.write(UInt8(2 + 24 + data.count))
        w.write(HCI.LEMetaEvent.Subevent.extendedAdvertisingReport)
        w.write(UInt8(1))
        w.write(properties)
        w.write(address.type.rawValue)
        w.write(address.address)
        w.write(UInt8(0x01))  // LE 1M
        w.write(UInt8(0x00))  // no secondary PHY (legacy PDU)
        w.write(UInt8(0xFF))  // no ADI
        w.write(UInt8(0x7F))  // TX power not available
        w.write(rssi ?? 127)
        w.write(UInt16(0))
        w.write(UInt8(0))
        w.write(contentsOf: [UInt8](repeating: 0, count: 6))
        w.write(UInt8(data.count))
        w.write(contentsOf: data)
        return w.bytes
    }

    /// Counts of what one payload holds.
    struct Shape {
        var structures = 0
        var nameBytes = 0
        var uuids = 0
        var serviceData = 0
        var manufacturerData = 0
    }

    /// One simulated advertiser: an address, a PDU kind and a payload recipe.
    struct Device {
        enum Recipe: CaseIterable {
            case ruuvi, iBeacon, appleNearby, btHome, heartRate, nordicUART, fitnessBand, scanResponseName
        }

        var address: DeviceAddress
        var kind: HCI.AdvertisingReport.Kind
        var recipe: Recipe
        var name: [UInt8]
        var secret: [UInt8]

        init(index: Int, random: inout Random) {
            recipe = Recipe.allCases[index % Recipe.allCases.count]
            // Phones and tags use random addresses (mostly resolvable/non-resolvable private);
            // about a quarter of the devices are public (company OUI).
            let publicAddress = random.below(4) == 0
            let bits = random.next() & 0xFFFF_FFFF_FFFF
            address = DeviceAddress(Address(value: publicAddress ? bits & 0x3FFF_FFFF_FFFF : bits | 0xC000_0000_0000),
                                    type: publicAddress ? .public : .random)
            switch recipe {
            case .ruuvi, .btHome, .appleNearby: kind = .nonConnectable
            case .iBeacon: kind = .scannableUndirected
            case .scanResponseName: kind = .scanResponse
            // No ADV_DIRECT_IND: directed advertising carries no AD structures to decode.
            case .heartRate, .nordicUART, .fitnessBand: kind = .connectableUndirected
            }
            let names = ["Polar H10 ", "Ruuvi ", "ATC_", "Mi Band ", "Nordic_UART_", "Forerunner ", "HRM-Pro:", "iPhone "]
            let base = Array(names[index % names.count].utf8)
            let suffix = Array(String(random.next() & 0xFFFF_FFFF, radix: 16, uppercase: true).utf8)
            name = Array((base + suffix).prefix(18))
            secret = random.bytes(16)
        }

        /// The AD structures for one advertising event; sensor fields change every time.
        func advertisingData(sequence: UInt32, random: inout Random) -> ([UInt8], Shape) {
            var b = AdvertisingData.Builder()
            var shape = Shape()
            func add(_ type: UInt8, _ payload: [UInt8]) {
                b.add(type: type, payload)
                shape.structures += 1
            }
            let seq = [UInt8(truncatingIfNeeded: sequence), UInt8(truncatingIfNeeded: sequence >> 8)]
            switch recipe {
            case .ruuvi:
                // RAWv2: format 5, temperature, humidity, pressure, acceleration, power, movement,
                // sequence, MAC: 24 bytes after the company identifier 0x0499.
                add(AdvertisingData.ADType.flags, [0x06])
                add(AdvertisingData.ADType.manufacturerSpecific, [0x99, 0x04, 0x05] + random.bytes(14) + seq.reversed() + address.address.wireBytes.reversed())
                shape.manufacturerData += 1
            case .iBeacon:
                add(AdvertisingData.ADType.flags, [0x1A])
                add(AdvertisingData.ADType.manufacturerSpecific, [0x4C, 0x00, 0x02, 0x15] + secret + [0x00, 0x01] + seq + [0xC5])
                shape.manufacturerData += 1
            case .appleNearby:
                // Apple Continuity "Nearby Info" (0x10): reverse-engineered (furiousMAC/continuity).
                add(AdvertisingData.ADType.flags, [0x1A])
                add(AdvertisingData.ADType.txPowerLevel, [0x0C])
                add(AdvertisingData.ADType.manufacturerSpecific, [0x4C, 0x00, 0x10, 0x05, 0x01] + random.bytes(5))
                shape.manufacturerData += 1
            case .btHome:
                // BTHome v2, unencrypted: device info 0x40, packet id, temperature 0x02, humidity 0x03, battery 0x01.
                add(AdvertisingData.ADType.flags, [0x06])
                add(AdvertisingData.ADType.completeLocalName, Array(name.prefix(8)))
                shape.nameBytes += min(8, name.count)
                add(AdvertisingData.ADType.serviceData16, [0xD2, 0xFC, 0x40, 0x00, seq[0], 0x02] + random.bytes(2) + [0x03] + random.bytes(2) + [0x01, 0x5A])
                shape.serviceData += 1
            case .heartRate:
                add(AdvertisingData.ADType.flags, [0x06])
                add(AdvertisingData.ADType.completeUUID16, [0x0D, 0x18, 0x0F, 0x18, 0x0A, 0x18])
                shape.uuids += 3
                add(AdvertisingData.ADType.appearance, [0x41, 0x03])
                add(AdvertisingData.ADType.completeLocalName, Array(name.prefix(14)))
                shape.nameBytes += min(14, name.count)
            case .nordicUART:
                // Nordic UART Service 6E400001-B5A3-F393-E0A9-E50E24DCCA9E, least-significant byte first.
                add(AdvertisingData.ADType.flags, [0x06])
                add(AdvertisingData.ADType.completeUUID128, [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0,
                                                               0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E])
                shape.uuids += 1
                add(AdvertisingData.ADType.shortenedLocalName, Array(name.prefix(8)))
                shape.nameBytes += min(8, name.count)
            case .fitnessBand:
                add(AdvertisingData.ADType.flags, [0x06])
                add(AdvertisingData.ADType.incompleteUUID16, [0xE0, 0xFE])
                shape.uuids += 1
                add(AdvertisingData.ADType.serviceData16, [0xE0, 0xFE] + seq + random.bytes(4))
                shape.serviceData += 1
                add(AdvertisingData.ADType.manufacturerSpecific, [0x57, 0x01] + random.bytes(6))
                shape.manufacturerData += 1
            case .scanResponseName:
                add(AdvertisingData.ADType.completeLocalName, name)
                shape.nameBytes += name.count
                add(AdvertisingData.ADType.txPowerLevel, [0xF8])
                add(AdvertisingData.ADType.appearance, [0xC0, 0x00])
            }
            return (b.bytes, shape)
        }
    }
}
