import Readings
import Wire

/// One CGM Measurement record, characteristic 0x2AA7 (notify); a notification may carry several
/// back to back, each starting with its own size (gatt-xml `cgm_measurement.xml`; NordicCommon
/// `ContinuousGlucoseMeasurementDataCallback`; docs/protocols/sig-cgm.md §CGM Measurement):
///
/// size u8 (the whole record, E2E-CRC included) · flags u8 · glucose SFLOAT mg/dL · time offset
/// u16 minutes since Session Start Time · [SSA octets] · [trend SFLOAT mg/dL/min, bit 0] ·
/// [quality SFLOAT %, bit 1] · [E2E-CRC u16].
///
/// Sensor Status Annunciation octets are on the wire in flag order: 0x20 "Warning", then 0x40
/// "Cal/Temp", then 0x80 "Status". What each octet *means* is where implementations disagree:
/// the SIG names them after the three octets of the 24-bit CGM status (Status = bits 0–7,
/// Cal/Temp = 8–15, Warning = 16–23), and RivieraWaves' server does the same; Nordic's Android
/// parser reads the first (0x20) octet as bits 0–7 (session stopped … general fault).
/// `annunciation` follows the SIG names, because they are the specification's own and a server
/// built from the spec text sends them so; `annunciationAsNordicReadsIt` is the other reading,
/// kept so that a log can show both when a device disagrees. Both keep the octets in wire order.
///
/// The E2E-CRC is recognised as Nordic does: size == computed length + 2. When CGM Feature bit
/// 12 announces E2E-CRC, a record without one is rejected; a CRC that does not match always is.
public struct CGMMeasurement: Hashable, Sendable {
    public struct Flags: OptionSet, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let trendPresent = Self(rawValue: 0x01)
        public static let qualityPresent = Self(rawValue: 0x02)
        public static let warningOctetPresent = Self(rawValue: 0x20)
        public static let calibrationTemperatureOctetPresent = Self(rawValue: 0x40)
        public static let statusOctetPresent = Self(rawValue: 0x80)
    }

    public var flags: Flags
    public var glucose: IEEE11073.SFloat
    public var timeOffsetMinutes: UInt16
    public var warningOctet: UInt8?
    public var calibrationTemperatureOctet: UInt8?
    public var statusOctet: UInt8?
    /// mg/dL per minute.
    public var trend: IEEE11073.SFloat?
    /// Percent.
    public var quality: IEEE11073.SFloat?
    public var hasE2ECRC: Bool

    public init(glucose: IEEE11073.SFloat, timeOffsetMinutes: UInt16, warningOctet: UInt8? = nil,
                calibrationTemperatureOctet: UInt8? = nil, statusOctet: UInt8? = nil,
                trend: IEEE11073.SFloat? = nil, quality: IEEE11073.SFloat? = nil, hasE2ECRC: Bool = false) {
        var flags: Flags = []
        if trend != nil { flags.insert(.trendPresent) }
        if quality != nil { flags.insert(.qualityPresent) }
        if warningOctet != nil { flags.insert(.warningOctetPresent) }
        if calibrationTemperatureOctet != nil { flags.insert(.calibrationTemperatureOctetPresent) }
        if statusOctet != nil { flags.insert(.statusOctetPresent) }
        self.flags = flags
        self.glucose = glucose
        self.timeOffsetMinutes = timeOffsetMinutes
        self.warningOctet = warningOctet
        self.calibrationTemperatureOctet = calibrationTemperatureOctet
        self.statusOctet = statusOctet
        self.trend = trend
        self.quality = quality
        self.hasE2ECRC = hasE2ECRC
    }

    /// Every record in one notification.
    public static func records(decoding bytes: [UInt8], crcRequired: Bool) throws(WireError) -> [CGMMeasurement] {
        var records: [CGMMeasurement] = []
        for record in try split(bytes) { records.append(try CGMMeasurement(record: record, crcRequired: crcRequired)) }
        return records
    }

    /// The records of one notification by their size bytes, undecoded, so that one record with
    /// a bad CRC does not take its neighbours down with it. Throws only when the sizes
    /// themselves do not add up (then no boundary after the fault can be trusted).
    public static func split(_ bytes: [UInt8]) throws(WireError) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            let size = Int(bytes[offset])
            guard size >= 6 else { throw .invalidValue(field: "CGM Measurement size", value: size) }
            guard offset + size <= bytes.count else {
                throw .truncated(field: "CGM Measurement record \(records.count + 1)", needed: size, available: bytes.count - offset)
            }
            records.append(Array(bytes[offset..<(offset + size)]))
            offset += size
        }
        guard !records.isEmpty else { throw .truncated(field: "CGM Measurement", needed: 6, available: 0) }
        return records
    }

    /// One record, `size` byte included.
    public init(record bytes: [UInt8], crcRequired: Bool) throws(WireError) {
        var reader = ByteReader(bytes)
        let size = Int(try reader.readUInt8("CGM Measurement size"))
        guard size == bytes.count else { throw .malformed("CGM Measurement size \(size) but the record has \(bytes.count) bytes") }
        flags = Flags(rawValue: try reader.readUInt8("CGM Measurement flags"))
        var computed = 6
        for flag in [Flags.warningOctetPresent, .calibrationTemperatureOctetPresent, .statusOctetPresent, .trendPresent, .qualityPresent]
        where flags.contains(flag) {
            computed += flag == .trendPresent || flag == .qualityPresent ? 2 : 1
        }
        if size == computed + 2 {
            try CGME2ECRC.check(bytes, what: "CGM Measurement")
            hasE2ECRC = true
        } else if size == computed {
            guard !crcRequired else { throw .malformed("CGM Measurement: E2E-CRC missing although CGM Feature announces it") }
            hasE2ECRC = false
        } else {
            throw .malformed("CGM Measurement size \(size) fits neither the flags 0x\(Hex.encode([flags.rawValue])) (\(computed)) nor them plus E2E-CRC")
        }
        glucose = try reader.readSFloat("CGM Measurement glucose")
        timeOffsetMinutes = try reader.readUInt16("CGM Measurement time offset")
        warningOctet = flags.contains(.warningOctetPresent) ? try reader.readUInt8("CGM SSA warning") : nil
        calibrationTemperatureOctet = flags.contains(.calibrationTemperatureOctetPresent) ? try reader.readUInt8("CGM SSA cal/temp") : nil
        statusOctet = flags.contains(.statusOctetPresent) ? try reader.readUInt8("CGM SSA status") : nil
        trend = flags.contains(.trendPresent) ? try reader.readSFloat("CGM Measurement trend") : nil
        quality = flags.contains(.qualityPresent) ? try reader.readSFloat("CGM Measurement quality") : nil
    }

    /// The wire form (for rigs and tests).
    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt8(0))  // size, patched below
        writer.write(flags.rawValue)
        writer.write(glucose.raw)
        writer.write(timeOffsetMinutes)
        if let warningOctet { writer.write(warningOctet) }
        if let calibrationTemperatureOctet { writer.write(calibrationTemperatureOctet) }
        if let statusOctet { writer.write(statusOctet) }
        if let trend { writer.write(trend.raw) }
        if let quality { writer.write(quality.raw) }
        var bytes = writer.bytes
        bytes[0] = UInt8(bytes.count + (hasE2ECRC ? 2 : 0))
        return hasE2ECRC ? CGME2ECRC.appending(to: bytes) : bytes
    }

    /// The annunciation by the SIG octet names: Status → bits 0–7, Cal/Temp → 8–15, Warning → 16–23.
    public var annunciation: CGMStatusBits {
        CGMStatusBits(rawValue: UInt32(statusOctet ?? 0) | UInt32(calibrationTemperatureOctet ?? 0) << 8 | UInt32(warningOctet ?? 0) << 16)
    }

    /// The annunciation as Nordic's Android parser reads it: the first octet on the wire (flag
    /// 0x20) → bits 0–7, the second (0x40) → 8–15, the third (0x80) → 16–23.
    public var annunciationAsNordicReadsIt: CGMStatusBits {
        CGMStatusBits(rawValue: UInt32(warningOctet ?? 0) | UInt32(calibrationTemperatureOctet ?? 0) << 8 | UInt32(statusOctet ?? 0) << 16)
    }

    /// The trend arrow for the trend field (mg/dL/min), through the one table every glucose
    /// source uses, `TrendDirection(milligramsPerDeciliterPerMinute:)` (docs/trend-arrows.md).
    /// NaN, NRes and the reserved value carry no rate, and ±INF is no finite rate: all are
    /// NOT COMPUTABLE.
    public static func direction(milligramsPerDeciliterPerMinute trend: IEEE11073.SFloat) -> TrendDirection {
        trend.doubleValue.map(TrendDirection.init(milligramsPerDeciliterPerMinute:)) ?? .notComputable
    }
}
