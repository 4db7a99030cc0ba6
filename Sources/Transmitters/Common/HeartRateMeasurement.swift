import Readings
import Wire

/// Heart Rate Measurement, characteristic 0x2A37 of the Heart Rate Service (notify only).
///
/// Source: Bluetooth SIG GATT XML `org.bluetooth.characteristic.heart_rate_measurement.xml`
/// (mirrored in oesmith/gatt-xml), summarised in docs/protocols/sig-heart-rate.md §Heart Rate
/// Measurement:
///
/// | Offset | Field | Present when |
/// |---|---|---|
/// | 0 | flags: bit 0 rate is u16; bits 1–2 sensor contact; bit 3 energy; bit 4 RR; 5–7 RFU | always |
/// | 1 | heart rate, u8 or u16 bpm | always |
/// | … | energy expended, u16 kJ | flag bit 3 |
/// | … | RR-intervals, u16 × n in 1/1024 s, oldest first, to the end of the value | flag bit 4 |
///
/// Strictness, and why: the value has no length field, so a wrong length is the only sign of
/// a corrupted or misunderstood notification. A missing field, a lone odd byte among
/// RR-intervals, an RR flag with no interval, or bytes after the last declared field are all
/// rejected with the reason rather than guessed at. RFU flag bits are ignored, as the spec
/// asks receivers to do, so a future sensor still decodes.
public struct HeartRateMeasurement: Hashable, Sendable, CustomStringConvertible {
    public var heartRate: BeatsPerMinute
    /// True when the sender used the u16 rate format (flag bit 0); kept so `encode()` round-trips.
    public var usesUInt16Rate: Bool
    public var contact: SkinContact
    public var energyExpended: EnergyExpended?
    /// Empty when the RR flag is clear; never empty when it was set.
    public var rrIntervals: [RRInterval]

    public init(heartRate: BeatsPerMinute, usesUInt16Rate: Bool = false, contact: SkinContact = .notReported,
                energyExpended: EnergyExpended? = nil, rrIntervals: [RRInterval] = []) {
        self.heartRate = heartRate
        self.usesUInt16Rate = usesUInt16Rate
        self.contact = contact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    enum Flag {
        static let rateIsUInt16: UInt8 = 0x01
        static let contactShift: UInt8 = 1
        static let contactMask: UInt8 = 0x06
        static let energyExpendedPresent: UInt8 = 0x08
        static let rrIntervalsPresent: UInt8 = 0x10
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let flags = try reader.readUInt8("heart rate flags")
        usesUInt16Rate = flags & Flag.rateIsUInt16 != 0
        heartRate = BeatsPerMinute(usesUInt16Rate
            ? try reader.readUInt16("heart rate (u16)")
            : UInt16(try reader.readUInt8("heart rate (u8)")))
        switch (flags & Flag.contactMask) >> Flag.contactShift {
        case 2: contact = .notDetected
        case 3: contact = .detected
        default: contact = .notReported  // 0 and 1 both mean "feature not supported"
        }
        energyExpended = flags & Flag.energyExpendedPresent != 0
            ? EnergyExpended(kilojoules: try reader.readUInt16("energy expended"))
            : nil
        rrIntervals = []
        if flags & Flag.rrIntervalsPresent != 0 {
            guard reader.remainingCount >= 2 else {
                throw .truncated(field: "RR-interval (flag set, none present)", needed: 2, available: reader.remainingCount)
            }
            guard reader.remainingCount % 2 == 0 else {
                throw .malformed("odd byte after \(reader.remainingCount / 2) RR-interval(s): RR-intervals are u16 pairs")
            }
            while !reader.isAtEnd {
                rrIntervals.append(RRInterval(ticks: try reader.readUInt16("RR-interval")))
            }
        }
        try reader.expectEnd("heart rate measurement")
    }

    /// The wire form, for simulated sensors and round-trip tests.
    public func encode() -> [UInt8] {
        var flags: UInt8 = usesUInt16Rate ? Flag.rateIsUInt16 : 0
        switch contact {
        case .notReported: break
        case .notDetected: flags |= 2 << Flag.contactShift
        case .detected: flags |= 3 << Flag.contactShift
        }
        if energyExpended != nil { flags |= Flag.energyExpendedPresent }
        if !rrIntervals.isEmpty { flags |= Flag.rrIntervalsPresent }
        var writer = ByteWriter()
        writer.write(flags)
        if usesUInt16Rate { writer.write(heartRate.value) } else { writer.write(UInt8(truncatingIfNeeded: heartRate.value)) }
        if let energyExpended { writer.write(energyExpended.kilojoules) }
        for interval in rrIntervals { writer.write(interval.ticks) }
        return writer.bytes
    }

    public var description: String {
        var parts = ["\(heartRate)", "\(contact)"]
        if let energyExpended { parts.append("\(energyExpended)") }
        if !rrIntervals.isEmpty { parts.append("RR \(rrIntervals.map(\.ticks))/1024 s") }
        return parts.joined(separator: ", ")
    }
}
