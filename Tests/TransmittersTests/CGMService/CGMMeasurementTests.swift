import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct CGMMeasurementTests {
    // Hand-assembled per gatt-xml cgm_measurement.xml (docs/protocols/sig-cgm.md §CGM Measurement);
    // the E2E-CRCs were computed with a Python CRC-16/MCRF4XX whose check value ("123456789" →
    // 0x6F91) matches the catalogue.
    static let minimal = [UInt8](hex: "06 00 78 00 05 00")
    /// flags 0xE3: all three SSA octets (warning 0x01, cal/temp 0x02, status 0x04), trend
    /// 0xFFF1 = −15 × 10⁻¹ = −1.5 mg/dL/min, quality 0x005F = 95 %, and the E2E-CRC.
    static let everything = [UInt8](hex: "0f e3 78 00 05 00 01 02 04 f1 ff 5f 00 76 87")

    @Test func decodesTheMinimalRecord() throws {
        let records = try CGMMeasurement.records(decoding: Self.minimal, crcRequired: false)
        #expect(records.count == 1)
        let r = records[0]
        #expect(r.flags == [])
        #expect(r.glucose.doubleValue == 120)
        #expect(r.timeOffsetMinutes == 5)
        #expect(r.warningOctet == nil && r.calibrationTemperatureOctet == nil && r.statusOctet == nil)
        #expect(r.trend == nil && r.quality == nil)
        #expect(!r.hasE2ECRC)
        #expect(r.encoded == Self.minimal)
    }

    @Test func decodesEveryFieldAndTheCRC() throws {
        let r = try #require(try CGMMeasurement.records(decoding: Self.everything, crcRequired: true).first)
        #expect(r.flags == [.trendPresent, .qualityPresent, .warningOctetPresent, .calibrationTemperatureOctetPresent, .statusOctetPresent])
        #expect(r.glucose.doubleValue == 120)
        #expect(r.timeOffsetMinutes == 5)
        #expect(r.warningOctet == 0x01)
        #expect(r.calibrationTemperatureOctet == 0x02)
        #expect(r.statusOctet == 0x04)
        #expect(r.trend?.doubleValue == -1.5)
        #expect(r.quality?.doubleValue == 95)
        #expect(r.hasE2ECRC)
        #expect(r.encoded == Self.everything)
        // The two readings of the SSA octets (docs/protocols/sig-cgm.md §CGM Measurement;
        // docs/protocols/sources-disagree.md §SIG profiles): SIG names: status 0x04 → bit 2,
        // cal/temp 0x02 → bit 9, warning 0x01 → bit 16.
        #expect(r.annunciation == [.sensorTypeIncorrect, .calibrationNotAllowed, .resultLowerThanPatientLow])
        // Nordic: the first octet (0x01) → bit 0, the second → bit 9, the third (0x04) → bit 18.
        #expect(r.annunciationAsNordicReadsIt == [.sessionStopped, .calibrationNotAllowed, .resultLowerThanHypoLevel])
    }

    @Test func decodesSeveralRecordsInOneNotification() throws {
        let records = try CGMMeasurement.records(decoding: Self.minimal + Self.everything + [UInt8](hex: "06 00 79 00 06 00"), crcRequired: false)
        #expect(records.map(\.timeOffsetMinutes) == [5, 5, 6])
        #expect(records.map { $0.glucose.doubleValue } == [120, 120, 121])
        #expect(records.map(\.hasE2ECRC) == [false, true, false])
    }

    /// Every combination of the five defined flag bits, with and without E2E-CRC: encode from
    /// fields, decode, and compare.
    @Test(arguments: 0..<32, [false, true])
    func everyFlagCombinationRoundTrips(combination: Int, crc: Bool) throws {
        let record = CGMMeasurement(
            glucose: .init(raw: 0x00B4), timeOffsetMinutes: 0x1234,
            warningOctet: combination & 1 != 0 ? 0x80 : nil,
            calibrationTemperatureOctet: combination & 2 != 0 ? 0x10 : nil,
            statusOctet: combination & 4 != 0 ? 0x02 : nil,
            trend: combination & 8 != 0 ? .init(raw: 0x0002) : nil,
            quality: combination & 16 != 0 ? .init(raw: 0x0050) : nil,
            hasE2ECRC: crc)
        let bytes = record.encoded
        let expectedLength = 6 + (combination & 1) + (combination >> 1 & 1) + (combination >> 2 & 1)
            + 2 * (combination >> 3 & 1) + 2 * (combination >> 4 & 1) + (crc ? 2 : 0)
        #expect(bytes.count == expectedLength)
        #expect(Int(bytes[0]) == expectedLength)
        let decoded = try CGMMeasurement.records(decoding: bytes, crcRequired: crc)
        #expect(decoded == [record])
    }

    @Test(arguments: [
        ("empty", [UInt8](), false),
        ("size below the minimum", [UInt8](hex: "05 00 78 00 05"), false),
        ("size beyond the notification", [UInt8](hex: "07 00 78 00 05 00"), false),
        ("size fits neither form", [UInt8](hex: "07 00 78 00 05 00 00"), false),
        ("flags promise a trend that is not there", [UInt8](hex: "06 01 78 00 05 00"), false),
        ("CRC wrong", [UInt8](hex: "0f e3 78 00 05 00 01 02 04 f1 ff 5f 00 76 88"), false),
        ("CRC wrong even when not announced", [UInt8](hex: "08 00 78 00 05 00 00 00"), false),
        ("CRC missing although announced", minimal, true),
        ("second record truncated", minimal + [UInt8](hex: "06 00 78"), false),
        ("a zero size", [UInt8](hex: "00"), false),
    ])
    func rejects(_ name: String, bytes: [UInt8], crcRequired: Bool) {
        #expect(throws: WireError.self, "\(name)") { try CGMMeasurement.records(decoding: bytes, crcRequired: crcRequired) }
    }

    // xDrip+ BgReading.slopeName thresholds (docs/trend-arrows.md), at and just beyond each edge; SFLOAT raw
    // values hand-encoded with exponent −1 (0xF) and a 12-bit two's-complement mantissa.
    @Test(arguments: [
        (UInt16(0xFFDD), TrendDirection.doubleDown),  // −3.5
        (0xFFDE, .singleDown),                        // −3.4
        (0xFFEC, .singleDown),                        // −2.0
        (0xFFED, .fortyFiveDown),                     // −1.9
        (0xFFF6, .fortyFiveDown),                     // −1.0
        (0xFFF7, .flat),                              // −0.9
        (0x0000, .flat),                              // 0
        (0xF00A, .flat),                              // 1.0
        (0xF00B, .fortyFiveUp),                       // 1.1
        (0xF014, .fortyFiveUp),                       // 2.0
        (0xF015, .singleUp),                          // 2.1
        (0xF023, .singleUp),                          // 3.5
        (0xF024, .doubleUp),                          // 3.6
        (0x07FF, .notComputable),                     // NaN
        (0x0800, .notComputable),                     // NRes
        (0x07FE, .notComputable),                     // +INF: no finite rate
        (0x0802, .notComputable),                     // −INF
    ])
    func trendDirections(raw: UInt16, direction: TrendDirection) {
        #expect(CGMMeasurement.direction(milligramsPerDeciliterPerMinute: .init(raw: raw)) == direction)
    }
}
