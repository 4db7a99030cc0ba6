import Wire

/// The 24-bit CGM status / sensor status annunciation bits (gatt-xml `cgm_status.xml`,
/// `cgm_measurement.xml`; docs/protocols/sig-cgm.md §CGM Status). Octet 0 (bits 0–7) "Status",
/// octet 1 (8–15) "Cal/Temp", octet 2 (16–23) "Warning".
public struct CGMStatusBits: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue & 0xFF_FFFF }

    public static let sessionStopped = Self(rawValue: 1 << 0)
    public static let deviceBatteryLow = Self(rawValue: 1 << 1)
    public static let sensorTypeIncorrect = Self(rawValue: 1 << 2)
    public static let sensorMalfunction = Self(rawValue: 1 << 3)
    public static let deviceSpecificAlert = Self(rawValue: 1 << 4)
    public static let generalDeviceFault = Self(rawValue: 1 << 5)
    public static let timeSynchronizationRequired = Self(rawValue: 1 << 8)
    public static let calibrationNotAllowed = Self(rawValue: 1 << 9)
    public static let calibrationRecommended = Self(rawValue: 1 << 10)
    public static let calibrationRequired = Self(rawValue: 1 << 11)
    public static let temperatureTooHigh = Self(rawValue: 1 << 12)
    public static let temperatureTooLow = Self(rawValue: 1 << 13)
    public static let resultLowerThanPatientLow = Self(rawValue: 1 << 16)
    public static let resultHigherThanPatientHigh = Self(rawValue: 1 << 17)
    public static let resultLowerThanHypoLevel = Self(rawValue: 1 << 18)
    public static let resultHigherThanHyperLevel = Self(rawValue: 1 << 19)
    public static let rateOfDecreaseExceeded = Self(rawValue: 1 << 20)
    public static let rateOfIncreaseExceeded = Self(rawValue: 1 << 21)
    public static let resultLowerThanDeviceCanProcess = Self(rawValue: 1 << 22)
    public static let resultHigherThanDeviceCanProcess = Self(rawValue: 1 << 23)

    /// The bits that say the glucose value itself cannot be trusted.
    public static let invalidatesResult: Self = [.sessionStopped, .sensorTypeIncorrect, .sensorMalfunction, .generalDeviceFault]

    static let names: [Int: String] = [
        0: "session stopped", 1: "device battery low", 2: "sensor type incorrect", 3: "sensor malfunction",
        4: "device specific alert", 5: "general device fault", 8: "time synchronization required",
        9: "calibration not allowed", 10: "calibration recommended", 11: "calibration required",
        12: "temperature too high", 13: "temperature too low", 16: "below patient low", 17: "above patient high",
        18: "below hypo level", 19: "above hyper level", 20: "rate of decrease exceeded",
        21: "rate of increase exceeded", 22: "below device range", 23: "above device range",
    ]

    public var description: String {
        let set = (0..<24).filter { rawValue & (1 << $0) != 0 }
        return set.isEmpty ? "ok" : set.map { Self.names[$0] ?? "reserved bit \($0)" }.joined(separator: ", ")
    }
}

/// CGM Status, characteristic 0x2AA9 (read): time offset u16 minutes · status u24 · [E2E-CRC]
/// (gatt-xml `cgm_status.xml`; docs/protocols/sig-cgm.md §CGM Status).
public struct CGMStatus: Hashable, Sendable {
    /// Minutes since the session started, when the status was read.
    public var timeOffsetMinutes: UInt16
    public var status: CGMStatusBits

    public init(timeOffsetMinutes: UInt16, status: CGMStatusBits) {
        self.timeOffsetMinutes = timeOffsetMinutes
        self.status = status
    }

    public init(decoding bytes: [UInt8], crcRequired: Bool) throws(WireError) {
        var reader = ByteReader(try CGME2ECRC.payload(of: bytes, length: 5, required: crcRequired, what: "CGM Status"))
        timeOffsetMinutes = try reader.readUInt16("CGM Status time offset")
        status = CGMStatusBits(rawValue: try reader.readUInt24("CGM Status status"))
    }
}

/// CGM Session Run Time, characteristic 0x2AAB (read): u16 hours · [E2E-CRC]; the expected
/// length of the session (gatt-xml `cgm_session_run_time.xml`; docs/protocols/sig-cgm.md §Session
/// Run Time).
public struct CGMSessionRunTime: Hashable, Sendable {
    public var hours: UInt16

    public init(hours: UInt16) { self.hours = hours }

    public init(decoding bytes: [UInt8], crcRequired: Bool) throws(WireError) {
        var reader = ByteReader(try CGME2ECRC.payload(of: bytes, length: 2, required: crcRequired, what: "CGM Session Run Time"))
        hours = try reader.readUInt16("CGM Session Run Time")
    }

    public var duration: Duration { .seconds(Int64(hours) * 3600) }
}
