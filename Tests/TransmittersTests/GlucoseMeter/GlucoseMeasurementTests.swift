import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct GlucoseMeasurementTests {
    static let time = DateTime(year: 2026, month: 11, day: 22, hours: 7, minutes: 30, seconds: 0)

    // Hand-assembled per gatt-xml glucose_measurement.xml (docs/protocols/sig-glucose.md §Glucose
    // Measurement): flags 0x03 (time offset, concentration kg/L), sequence 0x0102, 2026-11-22
    // 07:30:00, offset −60 min, SFLOAT 0xB07B = 123 × 10⁻⁵ kg/L = 123 mg/dL (the [verified]
    // vector), type 1 / location 1 (0x11).
    @Test func decodesTheKilogramsPerLiterVector() throws {
        let bytes = [UInt8](hex: "03 02 01 ea 07 0b 16 07 1e 00 c4 ff 7b b0 11")
        let m = try GlucoseMeasurement(decoding: bytes)
        #expect(m.flags == [.timeOffsetPresent, .concentrationPresent])
        #expect(m.sequenceNumber == 0x0102)
        #expect(m.baseTime == Self.time)
        #expect(m.timeOffset == .seconds(-3600))
        #expect(m.concentration == .init(value: IEEE11073.SFloat(raw: 0xB07B), unit: .kilogramsPerLiter))
        #expect(m.concentration?.glucose == GlucoseConcentration(milligramsPerDeciliter: 123))  // exactly
        #expect(m.sampleType == .capillaryWholeBlood)
        #expect(m.sampleLocation == .finger)
        #expect(m.sensorStatus == nil)
        #expect(!m.contextInformationFollows)
        #expect(m.encoded == bytes)
    }

    // Every flag: offset +5 min, 0xC044 = 68 × 10⁻⁴ mol/L = 6.8 mmol/L, type 2 capillary plasma at
    // location 2 (AST) = 0x22, status 0x0001 battery low, context follows (0x1F).
    @Test func decodesTheMolesPerLiterVectorWithEveryFlag() throws {
        let bytes = [UInt8](hex: "1f 2a 00 ea 07 0b 16 07 1e 00 05 00 44 c0 22 01 00")
        let m = try GlucoseMeasurement(decoding: bytes)
        #expect(m.flags.rawValue == 0x1F)
        #expect(m.sequenceNumber == 42)
        #expect(m.timeOffset == .seconds(300))
        #expect(m.concentration?.unit == .molesPerLiter)
        #expect(m.concentration?.glucose == GlucoseConcentration(millimolesPerLiter: 6.8))
        #expect(m.concentration?.glucose?.roundedMilligramsPerDeciliter == 123)  // 6.8 × 18.0182 = 122.5
        #expect(m.sampleType == .capillaryPlasma)
        #expect(m.sampleLocation == .alternateSiteTest)
        #expect(m.sensorStatus == .batteryLow)
        #expect(m.contextInformationFollows)
        #expect(m.encoded == bytes)
    }

    @Test func theMinimalRecordHasOnlyTheBaseTime() throws {
        let m = try GlucoseMeasurement(decoding: [UInt8](hex: "00 01 00 ea 07 0b 16 07 1e 00"))
        #expect(m.sequenceNumber == 1)
        #expect(m.timeOffset == nil && m.concentration == nil && m.sampleType == nil && m.sampleLocation == nil && m.sensorStatus == nil)
    }

    @Test func reservedFlagBitsAreIgnored() throws {
        let m = try GlucoseMeasurement(decoding: [UInt8](hex: "e0 01 00 ea 07 0b 16 07 1e 00"))
        #expect(m.timeOffset == nil && m.concentration == nil)
    }

    /// All 32 combinations of flag bits 0–4: encode from fields, decode, and compare field by field.
    @Test(arguments: 0..<32)
    func everyFlagCombinationRoundTrips(flags: Int) throws {
        let mol = flags & 0x04 != 0
        let hasConcentration = flags & 0x02 != 0
        // Bit 2 without bit 1 is legal on the wire (the unit of an absent value); build it by hand.
        var bytes: [UInt8] = [UInt8(flags), 0x07, 0x00] + [UInt8](hex: "ea 07 0b 16 07 1e 00")
        if flags & 0x01 != 0 { bytes += [0x0F, 0x00] }
        if hasConcentration { bytes += [0x7B, 0xB0, 0xA1] }
        if flags & 0x08 != 0 { bytes += [0x00, 0x08] }
        if flags & 0x10 != 0 { /* context follows: no bytes here */ }
        let m = try GlucoseMeasurement(decoding: bytes)
        #expect(m.sequenceNumber == 7)
        #expect(m.timeOffset == (flags & 0x01 != 0 ? .seconds(900) : nil))
        #expect(m.concentration == (hasConcentration ? .init(value: .init(raw: 0xB07B), unit: mol ? .molesPerLiter : .kilogramsPerLiter) : nil))
        #expect(m.sampleType == (hasConcentration ? .capillaryWholeBlood : nil))
        #expect(m.sampleLocation == (hasConcentration ? GlucoseSampleLocation(rawValue: 0x0A) : nil))
        #expect(m.sensorStatus == (flags & 0x08 != 0 ? .timeFault : nil))
        #expect(m.contextInformationFollows == (flags & 0x10 != 0))
        #expect(m.encoded == bytes)
    }

    @Test(arguments: [
        ("empty", [UInt8]()),
        ("no base time", [UInt8](hex: "00 01 00")),
        ("time offset missing", [UInt8](hex: "01 01 00 ea 07 0b 16 07 1e 00")),
        ("concentration without type/location", [UInt8](hex: "02 01 00 ea 07 0b 16 07 1e 00 7b b0")),
        ("status cut short", [UInt8](hex: "08 01 00 ea 07 0b 16 07 1e 00 01")),
        ("trailing byte", [UInt8](hex: "00 01 00 ea 07 0b 16 07 1e 00 00")),
        ("month 13", [UInt8](hex: "00 01 00 ea 07 0d 16 07 1e 00")),
    ])
    func rejects(_ name: String, bytes: [UInt8]) {
        #expect(throws: WireError.self, "\(name)") { try GlucoseMeasurement(decoding: bytes) }
    }

    /// Whole mg/dL sent as m × 10⁻⁵ kg/L must come out whole: alarms compare against integers.
    @Test func kilogramsPerLiterToMilligramsPerDeciliterIsExact() {
        for mgdl in 10...700 {
            let raw = 0xB000 | UInt16(mgdl)
            let glucose = GlucoseMeasurement.Concentration(value: .init(raw: raw), unit: .kilogramsPerLiter).glucose
            #expect(glucose?.milligramsPerDeciliter == Double(mgdl), "\(mgdl)")
        }
        // 0xC0C8 = 200 × 10⁻⁴ kg/L = 2000 mg/dL: the exponent shift, not the mantissa alone.
        #expect(GlucoseMeasurement.Concentration(value: .init(raw: 0xC0C8), unit: .kilogramsPerLiter).glucose?.milligramsPerDeciliter == 2000)
    }

    @Test(arguments: [
        (UInt16(0x07FF), "NaN"), (0x0800, "NRes"), (0x07FE, "+INF"), (0x0802, "-INF"), (0x0801, "reserved"),
    ])
    func specialValuesAreNoGlucose(raw: UInt16, name: String) {
        let concentration = GlucoseMeasurement.Concentration(value: .init(raw: raw), unit: .kilogramsPerLiter)
        #expect(concentration.glucose == nil)
        #expect(concentration.value.description == name)
    }

    @Test func statusAndTypeDescriptions() {
        #expect(GlucoseSensorStatus(rawValue: 0x0003).description == "battery low, sensor malfunction")
        #expect(GlucoseSensorStatus(rawValue: 0x1000).description == "reserved bit 12")
        #expect(GlucoseSensorStatus().description == "ok")
        #expect(GlucoseSensorStatus.invalidatesResult.contains(.timeFault))
        #expect(!GlucoseSensorStatus.invalidatesResult.contains(.batteryLow))
        #expect(GlucoseSampleType.controlSolution.description == "control solution")
        #expect(GlucoseSampleType(rawValue: 11).description == "reserved 11")
        #expect(GlucoseSampleLocation.notAvailable.description == "not available")
    }
}
