import Wire

/// CGM Feature, characteristic 0x2AA8 (read): features u24 · type (low nibble) / sample
/// location (high nibble) u8 · E2E-CRC u16 (gatt-xml `cgm_feature.xml`; docs/protocols/sig-cgm.md
/// §CGM Feature).
///
/// The CRC field is always present here; a device without E2E-CRC support sends 0xFFFF, so it
/// is checked only when bit 12 says the device computes it.
public struct CGMFeature: Hashable, Sendable {
    public struct Features: OptionSet, Hashable, Sendable {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let calibration = Self(rawValue: 1 << 0)
        public static let patientHighLowAlerts = Self(rawValue: 1 << 1)
        public static let hypoAlerts = Self(rawValue: 1 << 2)
        public static let hyperAlerts = Self(rawValue: 1 << 3)
        public static let rateOfIncreaseDecreaseAlerts = Self(rawValue: 1 << 4)
        public static let deviceSpecificAlert = Self(rawValue: 1 << 5)
        public static let sensorMalfunctionDetection = Self(rawValue: 1 << 6)
        public static let sensorTemperatureHighLowDetection = Self(rawValue: 1 << 7)
        public static let sensorResultHighLowDetection = Self(rawValue: 1 << 8)
        public static let lowBatteryDetection = Self(rawValue: 1 << 9)
        public static let sensorTypeErrorDetection = Self(rawValue: 1 << 10)
        public static let generalDeviceFault = Self(rawValue: 1 << 11)
        public static let e2eCRC = Self(rawValue: 1 << 12)
        public static let multipleBond = Self(rawValue: 1 << 13)
        public static let multipleSessions = Self(rawValue: 1 << 14)
        public static let trendInformation = Self(rawValue: 1 << 15)
        public static let quality = Self(rawValue: 1 << 16)
    }

    public var features: Features
    /// Same numbering as `GlucoseSampleType` (9 = interstitial fluid).
    public var sampleType: GlucoseSampleType
    /// 5 = subcutaneous tissue.
    public var sampleLocation: UInt8

    public init(features: Features, sampleType: GlucoseSampleType, sampleLocation: UInt8) {
        self.features = features
        self.sampleType = sampleType
        self.sampleLocation = sampleLocation
    }

    public var e2eCRCSupported: Bool { features.contains(.e2eCRC) }

    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        features = Features(rawValue: try reader.readUInt24("CGM Feature features"))
        let typeAndLocation = try reader.readUInt8("CGM Feature type/location")
        sampleType = GlucoseSampleType(rawValue: typeAndLocation & 0x0F)
        sampleLocation = typeAndLocation >> 4
        _ = try reader.readUInt16("CGM Feature E2E-CRC")
        try reader.expectEnd("CGM Feature")
        if features.contains(.e2eCRC) { try CGME2ECRC.check(bytes, what: "CGM Feature") }
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.writeUInt24(features.rawValue)
        writer.write(sampleLocation << 4 | sampleType.rawValue & 0x0F)
        return e2eCRCSupported ? CGME2ECRC.appending(to: writer.bytes) : writer.bytes + [0xFF, 0xFF]
    }
}
