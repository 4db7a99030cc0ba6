import Readings
import Wire

/// Glucose Measurement Context, characteristic 0x2A34 (notify), sent after a Glucose
/// Measurement whose flag bit 4 is set, with the same sequence number (gatt-xml
/// `glucose_measurement_context.xml`; docs/protocols/sig-glucose.md §Glucose Measurement Context):
///
/// flags u8 · sequence number u16 · [extended flags u8, bit 7] · [carbohydrate ID u8 ·
/// carbohydrate SFLOAT kg, bit 0] · [meal u8, bit 1] · [tester/health nibbles, bit 2] ·
/// [exercise duration u16 s · intensity u8 %, bit 3] · [medication ID u8 · medication SFLOAT,
/// bit 4; bit 5 selects litres over kilograms] · [HbA1c SFLOAT %, bit 6].
public struct GlucoseMeasurementContext: Hashable, Sendable {
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let carbohydratePresent = Self(rawValue: 0x01)
        public static let mealPresent = Self(rawValue: 0x02)
        public static let testerHealthPresent = Self(rawValue: 0x04)
        public static let exercisePresent = Self(rawValue: 0x08)
        public static let medicationPresent = Self(rawValue: 0x10)
        public static let medicationInLiters = Self(rawValue: 0x20)
        public static let hbA1cPresent = Self(rawValue: 0x40)
        public static let extendedFlagsPresent = Self(rawValue: 0x80)
    }

    public enum MedicationUnit: Hashable, Sendable { case kilograms, liters }

    public var flags: Flags
    public var sequenceNumber: UInt16
    public var extendedFlags: UInt8?
    /// 1 breakfast, 2 lunch, 3 dinner, 4 snack, 5 drink, 6 supper, 7 brunch.
    public var carbohydrateID: UInt8?
    /// Kilograms.
    public var carbohydrate: IEEE11073.SFloat?
    /// 1 preprandial, 2 postprandial, 3 fasting, 4 casual, 5 bedtime.
    public var meal: UInt8?
    /// Low nibble of the tester/health byte: 1 self, 2 health care professional, 3 lab test,
    /// 15 tester value not available (gatt-xml `glucose_measurement_context.xml`).
    public var tester: UInt8?
    /// High nibble of the tester/health byte.
    public var health: UInt8?
    /// 65535 s means "overrun" on the wire and is kept as sent.
    public var exerciseDuration: Duration?
    /// Percent.
    public var exerciseIntensity: UInt8?
    /// 1 rapid-acting, 2 short-acting, 3 intermediate, 4 long-acting insulin, 5 pre-mixed.
    public var medicationID: UInt8?
    public var medication: IEEE11073.SFloat?
    public var medicationUnit: MedicationUnit? { medication == nil ? nil : flags.contains(.medicationInLiters) ? .liters : .kilograms }
    /// Percent.
    public var hbA1c: IEEE11073.SFloat?

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        flags = Flags(rawValue: try reader.readUInt8("Glucose Context flags"))
        sequenceNumber = try reader.readUInt16("Glucose Context sequence number")
        extendedFlags = flags.contains(.extendedFlagsPresent) ? try reader.readUInt8("Glucose Context extended flags") : nil
        if flags.contains(.carbohydratePresent) {
            carbohydrateID = try reader.readUInt8("Glucose Context carbohydrate ID")
            carbohydrate = try reader.readSFloat("Glucose Context carbohydrate")
        }
        meal = flags.contains(.mealPresent) ? try reader.readUInt8("Glucose Context meal") : nil
        if flags.contains(.testerHealthPresent) {
            let byte = try reader.readUInt8("Glucose Context tester/health")
            tester = byte & 0x0F
            health = byte >> 4
        }
        if flags.contains(.exercisePresent) {
            exerciseDuration = .seconds(Int64(try reader.readUInt16("Glucose Context exercise duration")))
            exerciseIntensity = try reader.readUInt8("Glucose Context exercise intensity")
        }
        if flags.contains(.medicationPresent) {
            medicationID = try reader.readUInt8("Glucose Context medication ID")
            medication = try reader.readSFloat("Glucose Context medication")
        }
        hbA1c = flags.contains(.hbA1cPresent) ? try reader.readSFloat("Glucose Context HbA1c") : nil
        try reader.expectEnd("Glucose Measurement Context")
    }
}

extension GlucoseMeasurementContext {
    /// The meal and tester as a reading keeps them; reserved values (meal 0 and 6–255,
    /// tester 0 and 4–14) say nothing and are left out. Nil when neither is known.
    public var readingContext: MeterReadingContext? {
        let meal: MeterReadingContext.Meal? = switch self.meal {
        case 1: .preprandial
        case 2: .postprandial
        case 3: .fasting
        case 4: .casual
        case 5: .bedtime
        default: nil
        }
        let tester: MeterReadingContext.Tester? = switch self.tester {
        case 1: .selfTested
        case 2: .healthCareProfessional
        case 3: .labTest
        case 15: .notAvailable
        default: nil
        }
        return MeterReadingContext(meal: meal, tester: tester)
    }
}

/// Glucose Feature, characteristic 0x2A51 (read), u16 (gatt-xml `glucose_feature.xml`;
/// docs/protocols/sig-glucose.md §Glucose Measurement Context): which sensor status bits the meter
/// can report, and multiple bonds.
public struct GlucoseFeature: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let lowBatteryDetection = Self(rawValue: 1 << 0)
    public static let sensorMalfunctionDetection = Self(rawValue: 1 << 1)
    public static let sensorSampleSize = Self(rawValue: 1 << 2)
    public static let stripInsertionErrorDetection = Self(rawValue: 1 << 3)
    public static let stripTypeErrorDetection = Self(rawValue: 1 << 4)
    public static let resultHighLowDetection = Self(rawValue: 1 << 5)
    public static let temperatureHighLowDetection = Self(rawValue: 1 << 6)
    public static let readInterruptDetection = Self(rawValue: 1 << 7)
    public static let generalDeviceFault = Self(rawValue: 1 << 8)
    public static let timeFault = Self(rawValue: 1 << 9)
    public static let multipleBond = Self(rawValue: 1 << 10)

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        rawValue = try reader.readUInt16("Glucose Feature")
        try reader.expectEnd("Glucose Feature")
    }
}
