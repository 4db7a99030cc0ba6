import Clocks
import Readings
import Wire

/// Glucose Measurement, characteristic 0x2A18 (notify), of the Glucose Service 0x1808
/// (gatt-xml `glucose_measurement.xml`; NordicCommon `GlucoseMeasurementDataCallback`;
/// docs/protocols/sig-glucose.md §Glucose Measurement):
///
/// flags u8 · sequence number u16 · base time (Date Time, 7) · [time offset i16 minutes] ·
/// [concentration SFLOAT · type/location u8] · [sensor status annunciation u16].
///
/// Flags: bit 0 time offset · bit 1 concentration with type/location · bit 2 unit (0 kg/L,
/// 1 mol/L) · bit 3 sensor status · bit 4 a Measurement Context follows · bits 5–7 RFU (ignored,
/// as the spec asks of receivers).
public struct GlucoseMeasurement: Hashable, Sendable {
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let timeOffsetPresent = Self(rawValue: 0x01)
        public static let concentrationPresent = Self(rawValue: 0x02)
        public static let molesPerLiter = Self(rawValue: 0x04)
        public static let sensorStatusPresent = Self(rawValue: 0x08)
        public static let contextInformationFollows = Self(rawValue: 0x10)
    }

    /// The concentration as sent, in the unit the flags chose.
    public struct Concentration: Hashable, Sendable {
        public enum Unit: Hashable, Sendable { case kilogramsPerLiter, molesPerLiter }
        public var value: IEEE11073.SFloat
        public var unit: Unit

        public init(value: IEEE11073.SFloat, unit: Unit) {
            self.value = value
            self.unit = unit
        }

        /// 1 mg/dL = 10⁻⁵ kg/L and 1 mmol/L = 10⁻³ mol/L (docs/protocols/sig-glucose.md §Glucose
        /// Measurement); nil for NaN, NRes, the reserved value and the infinities, none of which is
        /// a glucose.
        ///
        /// The unit change is a shift of the decimal exponent (+5 or +3), so 0xB07B (123 × 10⁻⁵
        /// kg/L) is exactly 123 mg/dL rather than the 122.99999999999999 of a binary multiply.
        public var glucose: GlucoseConcentration? {
            guard case let .number(mantissa, exponent) = value.value else { return nil }
            switch unit {
            case .kilogramsPerLiter:
                return Double("\(mantissa)e\(Int(exponent) + 5)").map { GlucoseConcentration(milligramsPerDeciliter: $0) }
            case .molesPerLiter:
                return Double("\(mantissa)e\(Int(exponent) + 3)").map { GlucoseConcentration(millimolesPerLiter: $0) }
            }
        }
    }

    public var flags: Flags
    public var sequenceNumber: UInt16
    public var baseTime: DateTime
    public var timeOffset: Duration?
    public var concentration: Concentration?
    /// Low nibble of the type/location byte.
    public var sampleType: GlucoseSampleType?
    /// High nibble of the type/location byte.
    public var sampleLocation: GlucoseSampleLocation?
    public var sensorStatus: GlucoseSensorStatus?

    public var contextInformationFollows: Bool { flags.contains(.contextInformationFollows) }

    /// When the record was measured on the meter's own clock: base time + time offset, read as
    /// if UTC (the Glucose Service carries no zone); nil when the meter's date is not set.
    public var meterClockTime: WallClockTime? {
        baseTime.wallClockTimeAsIfUTC.map { $0 + (timeOffset ?? .zero) }
    }

    /// The record's own date as the meter states it, as ISO 8601 text without a zone
    /// (`2026-11-22T07:30:00`): the run of its `SensorStamp`, which keeps a reset meter's new
    /// record #1 apart from the old #1. Nil when the meter's date is not set.
    public var meterClockText: String? {
        meterClockTime.map { String($0.iso8601.prefix(19)) }
    }

    public init(sequenceNumber: UInt16, baseTime: DateTime, timeOffset: Duration? = nil, concentration: Concentration? = nil,
                sampleType: GlucoseSampleType? = nil, sampleLocation: GlucoseSampleLocation? = nil,
                sensorStatus: GlucoseSensorStatus? = nil, contextInformationFollows: Bool = false) {
        var flags: Flags = []
        if timeOffset != nil { flags.insert(.timeOffsetPresent) }
        if concentration != nil { flags.insert(.concentrationPresent) }
        if concentration?.unit == .molesPerLiter { flags.insert(.molesPerLiter) }
        if sensorStatus != nil { flags.insert(.sensorStatusPresent) }
        if contextInformationFollows { flags.insert(.contextInformationFollows) }
        self.flags = flags
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.sampleType = sampleType
        self.sampleLocation = sampleLocation
        self.sensorStatus = sensorStatus
    }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        flags = Flags(rawValue: try reader.readUInt8("Glucose Measurement flags"))
        sequenceNumber = try reader.readUInt16("Glucose Measurement sequence number")
        baseTime = try DateTime(from: &reader)
        timeOffset = flags.contains(.timeOffsetPresent)
            ? .seconds(Int64(try reader.readInt16("Glucose Measurement time offset")) * 60) : nil
        if flags.contains(.concentrationPresent) {
            let value = try reader.readSFloat("Glucose Measurement concentration")
            concentration = Concentration(value: value, unit: flags.contains(.molesPerLiter) ? .molesPerLiter : .kilogramsPerLiter)
            let typeAndLocation = try reader.readUInt8("Glucose Measurement type/location")
            sampleType = GlucoseSampleType(rawValue: typeAndLocation & 0x0F)
            sampleLocation = GlucoseSampleLocation(rawValue: typeAndLocation >> 4)
        } else {
            concentration = nil
            sampleType = nil
            sampleLocation = nil
        }
        sensorStatus = flags.contains(.sensorStatusPresent)
            ? GlucoseSensorStatus(rawValue: try reader.readUInt16("Glucose Measurement sensor status")) : nil
        try reader.expectEnd("Glucose Measurement")
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.write(flags.rawValue)
        writer.write(sequenceNumber)
        baseTime.write(to: &writer)
        if let timeOffset { writer.write(Int16(clamping: timeOffset.nanosecondsClamped / 60_000_000_000)) }
        if let concentration {
            writer.write(concentration.value.raw)
            writer.write((sampleLocation?.rawValue ?? 0) << 4 | (sampleType?.rawValue ?? 0) & 0x0F)
        }
        if let sensorStatus { writer.write(sensorStatus.rawValue) }
        return writer.bytes
    }
}

/// The sample type nibble (gatt-xml `glucose_measurement.xml`; docs/protocols/sig-glucose.md
/// §Glucose Measurement).
public struct GlucoseSampleType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let capillaryWholeBlood = Self(rawValue: 1)
    public static let capillaryPlasma = Self(rawValue: 2)
    public static let venousWholeBlood = Self(rawValue: 3)
    public static let venousPlasma = Self(rawValue: 4)
    public static let arterialWholeBlood = Self(rawValue: 5)
    public static let arterialPlasma = Self(rawValue: 6)
    public static let undeterminedWholeBlood = Self(rawValue: 7)
    public static let undeterminedPlasma = Self(rawValue: 8)
    public static let interstitialFluid = Self(rawValue: 9)
    public static let controlSolution = Self(rawValue: 10)

    public var description: String {
        let names = ["reserved 0", "capillary whole blood", "capillary plasma", "venous whole blood", "venous plasma",
                     "arterial whole blood", "arterial plasma", "undetermined whole blood", "undetermined plasma",
                     "interstitial fluid", "control solution"]
        return Int(rawValue) < names.count ? names[Int(rawValue)] : "reserved \(rawValue)"
    }
}

/// The sample location nibble (gatt-xml `glucose_measurement.xml`; docs/protocols/sig-glucose.md
/// §Glucose Measurement).
public struct GlucoseSampleLocation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let finger = Self(rawValue: 1)
    public static let alternateSiteTest = Self(rawValue: 2)
    public static let earlobe = Self(rawValue: 3)
    public static let controlSolution = Self(rawValue: 4)
    public static let notAvailable = Self(rawValue: 15)

    public var description: String {
        switch rawValue {
        case 1: "finger"
        case 2: "alternate site test"
        case 3: "earlobe"
        case 4: "control solution"
        case 15: "not available"
        default: "reserved \(rawValue)"
        }
    }
}

/// Sensor Status Annunciation, u16 (gatt-xml `glucose_measurement.xml`;
/// docs/protocols/sig-glucose.md §Glucose Measurement).
public struct GlucoseSensorStatus: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let batteryLow = Self(rawValue: 1 << 0)
    public static let sensorMalfunction = Self(rawValue: 1 << 1)
    public static let sampleSizeInsufficient = Self(rawValue: 1 << 2)
    public static let stripInsertionError = Self(rawValue: 1 << 3)
    public static let stripTypeIncorrect = Self(rawValue: 1 << 4)
    public static let resultHigherThanDeviceCanProcess = Self(rawValue: 1 << 5)
    public static let resultLowerThanDeviceCanProcess = Self(rawValue: 1 << 6)
    public static let temperatureTooHigh = Self(rawValue: 1 << 7)
    public static let temperatureTooLow = Self(rawValue: 1 << 8)
    public static let readInterrupted = Self(rawValue: 1 << 9)
    public static let generalDeviceFault = Self(rawValue: 1 << 10)
    public static let timeFault = Self(rawValue: 1 << 11)

    static let names = ["battery low", "sensor malfunction", "sample size insufficient", "strip insertion error",
                        "strip type incorrect", "result higher than the device can process",
                        "result lower than the device can process", "temperature too high", "temperature too low",
                        "read interrupted", "general device fault", "time fault"]

    /// Every status except a low battery says the number (or its time) cannot be trusted.
    public static let invalidatesResult: Self = Self(rawValue: 0x0FFE)

    public var description: String {
        let set = (0..<16).filter { rawValue & (1 << $0) != 0 }
        return set.isEmpty ? "ok" : set.map { $0 < Self.names.count ? Self.names[$0] : "reserved bit \($0)" }.joined(separator: ", ")
    }
}
