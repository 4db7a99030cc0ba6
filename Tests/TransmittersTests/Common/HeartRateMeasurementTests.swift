import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct HeartRateMeasurementTests {
    struct Vector: CustomStringConvertible, Sendable {
        let hex: String
        let bpm: UInt16
        let uint16: Bool
        let contact: SkinContact
        let energy: UInt16?
        let rr: [UInt16]
        var description: String { hex }
    }

    // Hand-assembled from the field table of gatt-xml heart_rate_measurement.xml
    // (docs/protocols/sig-heart-rate.md §Heart Rate Measurement): flags, rate u8/u16, [energy u16
    // kJ], [RR u16 × n, 1/1024 s].
    static let vectors: [Vector] = [
        Vector(hex: "00 48", bpm: 72, uint16: false, contact: .notReported, energy: nil, rr: []),
        Vector(hex: "01 34 01", bpm: 308, uint16: true, contact: .notReported, energy: nil, rr: []),
        Vector(hex: "02 3C", bpm: 60, uint16: false, contact: .notReported, energy: nil, rr: []),  // contact value 1
        Vector(hex: "04 3C", bpm: 60, uint16: false, contact: .notDetected, energy: nil, rr: []),
        Vector(hex: "06 3C", bpm: 60, uint16: false, contact: .detected, energy: nil, rr: []),
        Vector(hex: "16 3C 6A 03", bpm: 60, uint16: false, contact: .detected, energy: nil, rr: [874]),
        Vector(hex: "1E 50 10 00 00 04 00 02", bpm: 80, uint16: false, contact: .detected, energy: 16, rr: [1024, 512]),
        Vector(hex: "19 2C 01 E8 03 55 03 AA 02 FF 03", bpm: 300, uint16: true, contact: .notReported, energy: 1000,
               rr: [853, 682, 1023]),
        Vector(hex: "08 00 FF FF", bpm: 0, uint16: false, contact: .notReported, energy: 0xFFFF, rr: []),
        // RFU bits 5–7 set: ignored, as receivers must.
        Vector(hex: "E6 3C", bpm: 60, uint16: false, contact: .detected, energy: nil, rr: []),
    ]

    @Test(arguments: vectors)
    func decodesHandAssembledVectors(vector: Vector) throws {
        let measurement = try HeartRateMeasurement(decoding: [UInt8](hex: vector.hex))
        #expect(measurement.heartRate == BeatsPerMinute(vector.bpm))
        #expect(measurement.usesUInt16Rate == vector.uint16)
        #expect(measurement.contact == vector.contact)
        #expect(measurement.energyExpended == vector.energy.map { EnergyExpended(kilojoules: $0) })
        #expect(measurement.rrIntervals == vector.rr.map { RRInterval(ticks: $0) })
    }

    /// Every combination of the five defined flag bits (0x00...0x1F), with the value built
    /// field by field here from fixed literals: rate 72 (u8) or 0x0134 = 308 (u16), energy
    /// 0x1234 = 4660 kJ, RR-intervals 1024, 874 and 65535 ticks.
    @Test(arguments: 0...0x1F)
    func decodesEveryFlagCombination(flags: Int) throws {
        var bytes: [UInt8] = [UInt8(flags)]
        bytes += flags & 0x01 != 0 ? [0x34, 0x01] : [0x48]
        if flags & 0x08 != 0 { bytes += [0x34, 0x12] }
        if flags & 0x10 != 0 { bytes += [0x00, 0x04, 0x6A, 0x03, 0xFF, 0xFF] }

        let measurement = try HeartRateMeasurement(decoding: bytes)

        #expect(measurement.heartRate.value == (flags & 0x01 != 0 ? 308 : 72))
        #expect(measurement.usesUInt16Rate == (flags & 0x01 != 0))
        let expectedContact: SkinContact = switch (flags >> 1) & 0x03 {
        case 2: .notDetected
        case 3: .detected
        default: .notReported
        }
        #expect(measurement.contact == expectedContact)
        #expect(measurement.energyExpended == (flags & 0x08 != 0 ? EnergyExpended(kilojoules: 4660) : nil))
        #expect(measurement.rrIntervals.map(\.ticks) == (flags & 0x10 != 0 ? [1024, 874, 65535] : []))

        // The same value with the RFU bits set decodes identically.
        var withReserved = bytes
        withReserved[0] |= 0xE0
        #expect(try HeartRateMeasurement(decoding: withReserved) == measurement)

        // Re-encoding gives the bytes back, except that contact value 1 ("not supported")
        // is written as 0, its synonym.
        var canonical = bytes
        if (flags >> 1) & 0x03 == 1 { canonical[0] &= ~0x02 }
        #expect(measurement.encode() == canonical)
    }

    @Test func decodesManyRRIntervals() throws {
        // A u8 rate with 9 RR-intervals fills a 20-byte notification (default MTU 23 − 3).
        let bytes: [UInt8] = [0x10, 0x48] + (1...9).flatMap { [UInt8($0), 0x03] }
        let measurement = try HeartRateMeasurement(decoding: bytes)
        #expect(measurement.rrIntervals.map(\.ticks) == (1...9).map { 0x0300 + UInt16($0) })
    }

    static let rejections: [(hex: String, error: WireError)] = [
        ("", .truncated(field: "heart rate flags", needed: 1, available: 0)),
        ("00", .truncated(field: "heart rate (u8)", needed: 1, available: 0)),
        ("01 48", .truncated(field: "heart rate (u16)", needed: 2, available: 1)),
        ("08 48 10", .truncated(field: "energy expended", needed: 2, available: 1)),
        ("10 48", .truncated(field: "RR-interval (flag set, none present)", needed: 2, available: 0)),
        ("10 48 6A", .truncated(field: "RR-interval (flag set, none present)", needed: 2, available: 1)),
        ("10 48 6A 03 01", .malformed("odd byte after 1 RR-interval(s): RR-intervals are u16 pairs")),
        ("18 48 10 00 6A 03 01 02 03", .malformed("odd byte after 2 RR-interval(s): RR-intervals are u16 pairs")),
        ("00 48 00", .trailingBytes(what: "heart rate measurement", count: 1)),
        ("08 48 10 00 6A 03", .trailingBytes(what: "heart rate measurement", count: 2)),
        ("01 48 00 FF", .trailingBytes(what: "heart rate measurement", count: 1)),
    ]

    @Test(arguments: rejections)
    func rejectsMalformedValuesWithTheReason(hex: String, error: WireError) {
        #expect(throws: error) { try HeartRateMeasurement(decoding: [UInt8](hex: hex)) }
    }

    @Test func describes() throws {
        let measurement = try HeartRateMeasurement(decoding: [UInt8](hex: "1E 50 10 00 00 04"))
        #expect(measurement.description == "80 bpm, skin contact, 16 kJ, RR [1024]/1024 s")
    }
}

/// Every flags byte (RFU bits included) against every length up to 12, checked against the
/// length rule written out independently of the decoder: flags, rate (1 or 2), energy (0 or 2),
/// then either nothing more or at least one whole RR pair.
@Suite struct HeartRateMeasurementLengthRuleTests {
    @Test(arguments: 0...0xFF)
    func acceptsExactlyTheLengthsTheFlagsDeclare(flags: Int) throws {
        let fixed = 1 + (flags & 0x01 != 0 ? 2 : 1) + (flags & 0x08 != 0 ? 2 : 0)
        let hasRR = flags & 0x10 != 0
        for length in 1...12 {
            let bytes = [UInt8(flags)] + (1..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            let valid = hasRR ? length >= fixed + 2 && (length - fixed) % 2 == 0 : length == fixed
            let decoded = try? HeartRateMeasurement(decoding: bytes)
            #expect((decoded != nil) == valid, "flags \(flags) length \(length)")
            if let decoded {
                #expect(decoded.rrIntervals.count == (hasRR ? (length - fixed) / 2 : 0))
                // Re-encoding reproduces the value up to the canonical flags byte.
                #expect(Array(decoded.encode().dropFirst()) == Array(bytes.dropFirst()))
            }
        }
    }
}
