/// Whether a body-worn sensor reports touching the skin: the Heart Rate Measurement's Sensor
/// Contact Status bits 1–2 (gatt-xml heart_rate_measurement.xml, docs/protocols/sig-heart-rate.md
/// §Heart Rate Measurement).
///
/// A heart rate with `.notDetected` is usually a strap lying on the bedside table, so alarms
/// should treat it as "no data", not as a real rate.
public enum SkinContact: Hashable, Sendable, CustomStringConvertible {
    /// The sensor does not report contact (wire values 0 and 1).
    case notReported
    /// Supported, but the sensor is not touching the skin (wire value 2).
    case notDetected
    /// Supported and touching (wire value 3).
    case detected

    public var description: String {
        switch self {
        case .notReported: "contact not reported"
        case .notDetected: "no skin contact"
        case .detected: "skin contact"
        }
    }
}
