import Wire

/// Body Sensor Location, characteristic 0x2A38 of the Heart Rate Service (read): one u8
/// (gatt-xml `org.bluetooth.characteristic.body_sensor_location.xml`,
/// docs/protocols/sig-heart-rate.md §Body Sensor Location).
///
/// Values 7–255 are reserved for future use; they are kept as `.reserved(n)` rather than
/// rejected, because where a strap sits is informational and a newer sensor should still work.
public enum BodySensorLocation: Hashable, Sendable, CustomStringConvertible {
    case other
    case chest
    case wrist
    case finger
    case hand
    case earLobe
    case foot
    case reserved(UInt8)

    public init(rawValue: UInt8) {
        switch rawValue {
        case 0: self = .other
        case 1: self = .chest
        case 2: self = .wrist
        case 3: self = .finger
        case 4: self = .hand
        case 5: self = .earLobe
        case 6: self = .foot
        default: self = .reserved(rawValue)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .other: 0
        case .chest: 1
        case .wrist: 2
        case .finger: 3
        case .hand: 4
        case .earLobe: 5
        case .foot: 6
        case let .reserved(value): value
        }
    }

    /// Exactly one byte; anything else is rejected.
    public init(decoding bytes: [UInt8]) throws(WireError) {
        var reader = ByteReader(bytes)
        let raw = try reader.readUInt8("body sensor location")
        try reader.expectEnd("body sensor location")
        self.init(rawValue: raw)
    }

    public var description: String {
        switch self {
        case .other: "other"
        case .chest: "chest"
        case .wrist: "wrist"
        case .finger: "finger"
        case .hand: "hand"
        case .earLobe: "ear lobe"
        case .foot: "foot"
        case let .reserved(value): "reserved (\(value))"
        }
    }
}
