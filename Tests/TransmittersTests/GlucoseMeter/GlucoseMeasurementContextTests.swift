import Readings
import Testing
import Wire
@testable import Transmitters

@Suite struct GlucoseMeasurementContextTests {
    // Hand-assembled per gatt-xml glucose_measurement_context.xml (docs/protocols/sig-glucose.md
    // §Glucose Measurement Context), every flag (0xFF): sequence 42, extended flags 0, carbohydrate
    // 1 (breakfast) 0xE005 = 0.05 kg, meal 1 (preprandial), tester 1 / health 2 (0x21), exercise
    // 3600 s at 50 %, medication 4 (long-acting) 0xD00A = 10 × 10⁻³ l (bit 5 set), HbA1c 0xF041 =
    // 6.5 %.
    @Test func decodesEveryField() throws {
        let c = try GlucoseMeasurementContext(decoding: [UInt8](hex: "ff 2a 00 00 01 05 e0 01 21 10 0e 32 04 0a d0 41 f0"))
        #expect(c.flags.rawValue == 0xFF)
        #expect(c.sequenceNumber == 42)
        #expect(c.extendedFlags == 0)
        #expect(c.carbohydrateID == 1)
        #expect(c.carbohydrate?.doubleValue == 0.05)
        #expect(c.meal == 1)
        #expect(c.tester == 1)
        #expect(c.health == 2)
        #expect(c.exerciseDuration == .seconds(3600))
        #expect(c.exerciseIntensity == 50)
        #expect(c.medicationID == 4)
        #expect(c.medication?.doubleValue == 0.01)
        #expect(c.medicationUnit == .liters)
        #expect(c.hbA1c?.doubleValue == 6.5)
    }

    /// Meal and tester as a reading keeps them, value by value from the field tables of
    /// glucose_measurement_context.xml (meal 1–5; tester 1 self, 2 health care professional,
    /// 3 lab test, 15 not available): flags 0x06 (meal + tester/health), sequence 7.
    static let contexts: [([UInt8], MeterReadingContext?)] = [
        ([0x01, 0xF1], MeterReadingContext(meal: .preprandial, tester: .selfTested)),   // health 15 in the high nibble
        ([0x02, 0x52], MeterReadingContext(meal: .postprandial, tester: .healthCareProfessional)),
        ([0x03, 0xF3], MeterReadingContext(meal: .fasting, tester: .labTest)),
        ([0x04, 0x5F], MeterReadingContext(meal: .casual, tester: .notAvailable)),
        ([0x05, 0x01], MeterReadingContext(meal: .bedtime, tester: .selfTested)),
        ([0x00, 0x04], nil),                                                     // reserved meal and tester
        ([0x06, 0x02], MeterReadingContext(meal: nil, tester: .healthCareProfessional)),  // meal 6 reserved
        ([0x03, 0x0E], MeterReadingContext(meal: .fasting, tester: nil)),        // tester 14 reserved
    ]

    @Test(arguments: contexts)
    func readingContext(fields: [UInt8], expected: MeterReadingContext?) throws {
        let context = try GlucoseMeasurementContext(decoding: [0x06, 0x07, 0x00] + fields)
        #expect(context.readingContext == expected)
    }

    /// The context every field present (above) is preprandial, tested by self; without the
    /// meal and tester flags there is none.
    @Test func readingContextNeedsMealOrTester() throws {
        let every = try GlucoseMeasurementContext(decoding: [UInt8](hex: "ff 2a 00 00 01 05 e0 01 21 10 0e 32 04 0a d0 41 f0"))
        #expect(every.readingContext == MeterReadingContext(meal: .preprandial, tester: .selfTested))
        #expect(try GlucoseMeasurementContext(decoding: [UInt8](hex: "40 2a 00 41 f0")).readingContext == nil)
    }

    static let singleFields: [(UInt8, [UInt8])] = [
        (0x00, []),
        (0x01, [0x03, 0x05, 0xE0]),
        (0x02, [0x05]),
        (0x04, [0xF3]),
        (0x08, [0xFF, 0xFF, 0x64]),
        (0x10, [0x01, 0x0A, 0xD0]),
        (0x30, [0x01, 0x0A, 0xD0]),
        (0x40, [0x41, 0xF0]),
        (0x80, [0x07]),
    ]

    /// Each optional field alone, so an off-by-one in the field order cannot hide.
    @Test(arguments: singleFields)
    func decodesEachFlagAlone(flags: UInt8, fields: [UInt8]) throws {
        let c = try GlucoseMeasurementContext(decoding: [flags, 0x09, 0x00] + fields)
        #expect(c.sequenceNumber == 9)
        #expect(c.carbohydrateID == (flags & 0x01 != 0 ? 3 : nil))
        #expect(c.carbohydrate?.raw == (flags & 0x01 != 0 ? 0xE005 : nil))
        #expect(c.meal == (flags & 0x02 != 0 ? 5 : nil))
        #expect(c.tester == (flags & 0x04 != 0 ? 3 : nil))
        #expect(c.health == (flags & 0x04 != 0 ? 15 : nil))
        #expect(c.exerciseDuration == (flags & 0x08 != 0 ? .seconds(65535) : nil))  // 65535 = overrun, kept as sent
        #expect(c.exerciseIntensity == (flags & 0x08 != 0 ? 100 : nil))
        #expect(c.medicationID == (flags & 0x10 != 0 ? 1 : nil))
        #expect(c.medicationUnit == (flags & 0x10 == 0 ? nil : flags & 0x20 != 0 ? .liters : .kilograms))
        #expect(c.hbA1c?.raw == (flags & 0x40 != 0 ? 0xF041 : nil))
        #expect(c.extendedFlags == (flags & 0x80 != 0 ? 7 : nil))
    }

    @Test(arguments: [
        [UInt8](),
        [UInt8](hex: "00 01"),
        [UInt8](hex: "01 01 00 03 05"),
        [UInt8](hex: "08 01 00 10 0e"),
        [UInt8](hex: "40 01 00 41"),
        [UInt8](hex: "00 01 00 00"),
    ])
    func rejects(bytes: [UInt8]) {
        #expect(throws: WireError.self) { try GlucoseMeasurementContext(decoding: bytes) }
    }

    // gatt-xml glucose_feature.xml bits.
    @Test func decodesTheFeature() throws {
        let feature = try GlucoseFeature(decoding: [0x03, 0x04])
        #expect(feature == [.lowBatteryDetection, .sensorMalfunctionDetection, .multipleBond])
        #expect(throws: WireError.self) { try GlucoseFeature(decoding: [0x03]) }
        #expect(throws: WireError.self) { try GlucoseFeature(decoding: [0x03, 0x04, 0x00]) }
    }
}
