import Bluetooth
import Clocks

/// The neighbours' devices a bedside appliance hears all night: phones, watches, tags and
/// beacons that Vigil must ignore without growing a table per address. Deterministic from a
/// seed, so a run repeats exactly.
///
/// Members take turns at three behaviours (by index modulo 4):
/// - 0 and 1, `.beacon`: non-connectable, well-formed AD that changes on every event (flags,
///   then a random mix of manufacturer data, 16-bit service UUIDs, a name and TX power, at
///   most 31 bytes as a legacy PDU allows, Core v5.4 Vol 6 Part B §2.3.1.3);
/// - 2, `.garbage`: non-connectable, 0–31 random bytes, so AD structures whose length runs
///   past the end, zero lengths and unknown types all reach the host's parser;
/// - 3, `.phone`: connectable and scannable (ADV_IND) with a name and service UUIDs no
///   configured transmitter uses.
///
/// Each member advertises every 200–2000 ms (its own interval) from its own phase, and rotates
/// its address every `rotationInterval` (staggered over the members), as phones do with
/// resolvable private addresses (Core v5.4 Vol 3 Part C §10.7: every 15 minutes by default):
/// the host sees a stream of addresses it has never seen before.
public struct NoisyCrowd: Sendable {
    public enum Behaviour: Sendable, Equatable {
        case beacon, garbage, phone
    }

    public let seed: UInt64
    public let count: Int
    public let rotationInterval: Duration
    /// Each member's address now.
    public private(set) var addresses: [DeviceAddress]
    /// Rotations so far, per member.
    public private(set) var generations: [UInt64]
    /// The earliest rotation due, kept so that asking costs nothing: a runner asks every turn.
    public private(set) var nextDeadline: MonotonicInstant?

    public init(count: Int = 40, seed: UInt64 = 0x5EED_C20D, rotationInterval: Duration = .seconds(15 * 60)) {
        self.seed = seed
        self.count = max(0, count)
        self.rotationInterval = rotationInterval
        generations = Array(repeating: 0, count: self.count)
        addresses = []
        nextDeadline = nil
        addresses = (0..<self.count).map { address(member: $0, generation: 0) }
        nextDeadline = earliestRotation()
    }

    public static func behaviour(of member: Int) -> Behaviour {
        switch member % 4 {
        case 2: .garbage
        case 3: .phone
        default: .beacon
        }
    }

    /// The members as peripherals, to add to a `SimulatedRadio`.
    public func peripherals() -> [SimulatedPeripheral] {
        (0..<count).map { member in
            let behaviour = Self.behaviour(of: member)
            let interval = Duration.milliseconds(200 + Int64(mix(seed, UInt64(member), 1) % 1801))
            let phase = Duration.milliseconds(Int64(mix(seed, UInt64(member), 2) % 1000))
            let seed = self.seed
            let advertising = AdvertisingConfiguration(
                kind: behaviour == .phone ? .connectable : .nonConnectable, interval: interval, data: [],
                scanResponse: behaviour == .phone ? [0x02, 0x0A, 0x00] : [], phase: phase,
                dataForEvent: { event in Self.advertisingData(member: member, event: event, seed: seed) },
                rssiJitter: 8)
            return SimulatedPeripheral(address: addresses[member], advertising: advertising,
                                       rssi: Int8(-95 + Int(mix(seed, UInt64(member), 3) % 40)))
        }
    }

    /// When member `member` next changes its address.
    func nextRotation(of member: Int) -> MonotonicInstant {
        let stagger = count > 0 ? rotationInterval * member / count : .zero
        return .zero + stagger + rotationInterval * Int(clamping: generations[member] + 1)
    }

    private func earliestRotation() -> MonotonicInstant? {
        guard rotationInterval > .zero else { return nil }
        return earliest((0..<count).map { nextRotation(of: $0) })
    }

    /// Gives every member whose rotation is due a new address on the radio. A member that is
    /// connected (nothing should connect to a stranger, but a host might) keeps its address
    /// for another interval: a device does not change its address under a link.
    public mutating func rotate(_ radio: inout SimulatedRadio, at now: MonotonicInstant) {
        guard let due = nextDeadline, due <= now else { return }
        defer { nextDeadline = earliestRotation() }
        for member in 0..<count {
            while nextRotation(of: member) <= now {
                generations[member] += 1
                guard radio[addresses[member].address]?.isConnected != true else { continue }
                let next = address(member: member, generation: generations[member])
                radio[addresses[member].address]?.address = next
                addresses[member] = next
            }
        }
    }

    /// A resolvable-private-looking random address (top bits 01, Vol 6 Part B §1.3.2.2), new
    /// for every member and generation.
    func address(member: Int, generation: UInt64) -> DeviceAddress {
        let bits = mix(seed, UInt64(member), 0x1000 + generation) & 0x3FFF_FFFF_FFFF | 0x4000_0000_0000
        return DeviceAddress(Address(value: bits), type: .random)
    }

    /// The AdvData of one advertising event of `member`.
    public static func advertisingData(member: Int, event: UInt64, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: mix(seed, UInt64(member), 0x10_0000 &+ event))
        switch behaviour(of: member) {
        case .garbage:
            return (0..<Int(random.next() % 32)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case .phone:
            var ad = AdvertisingData.Builder()
            ad.flags(0x1A)  // LE General Discoverable, simultaneous LE and BR/EDR (a phone)
            // Exposure Notification, and sometimes Google's 0xFE9F: UUIDs no configured device uses.
            ad.uuids16(random.next() % 2 == 0 ? [0xFD6F] : [0xFD6F, 0xFE9F])
            ad.completeName("Phone \(member)")
            return ad.bytes
        case .beacon:
            var ad = AdvertisingData.Builder()
            ad.flags(0x04)
            // Fill up to 31 bytes with random structures, each kept whole.
            while true {
                let choice = random.next() % 4
                let room = 31 - ad.bytes.count
                switch choice {
                case 0 where room >= 5:
                    let length = 1 + Int(random.next() % UInt64(min(room - 4, 24)))
                    ad.manufacturerData(company: UInt16(truncatingIfNeeded: random.next()),
                                        (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                case 1 where room >= 4:
                    ad.uuids16([0xFE00 | UInt16(random.next() % 0x100)])
                case 2 where room >= 4:
                    ad.completeName("tag\(random.next() % 100)".prefix(room - 2).description)
                case 3 where room >= 3:
                    ad.txPower(Int8(truncatingIfNeeded: random.next() % 20))
                default:
                    return ad.bytes
                }
                if random.next() % 3 == 0 { return ad.bytes }
            }
        }
    }
}

/// One pseudo-random number from three inputs.
private func mix(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
    var random = SplitMix64(seed: a ^ (b &* 0x9E37_79B9_7F4A_7C15) ^ (c &* 0xC2B2_AE3D_27D4_EB4F))
    return random.next()
}
