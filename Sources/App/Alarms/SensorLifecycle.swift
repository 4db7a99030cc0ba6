import Alarms
import Transmitters

/// A glucose sensor's session as the drivers describe it, mapped from each driver's own
/// words in `TransmitterInfo.sensorState` (free text, the transmitter's vocabulary). The
/// vocabularies do not overlap, so one mapping serves every driver; words it does not know
/// (calibration notes, record counts, noise warnings) are not lifecycle and map to nil.
///
/// - Dexcom (`Dexcom.CalibrationState.description`, docs/protocols/dexcom-g5-g6.md §Calibration
/// state and trend; "no sensor session" when TransmitterTimeRx has no session start): "warmup";
/// "ok" and "needs calibration" (with or without the 0x0E outlier note) give glucose; "needs
/// first/second initial calibration" wait for a fingerstick (G5); "stopped", "session ended",
/// "sensor failed (0x..)", "transmitter problem" and "no sensor session" give no glucose again.
/// - Libre through MiaoMiao or Bubble (`LibreSensorState.description`): "warming up";
///   "ready"; "not yet started", "expired" (its 12-hour grace repeats a stale value),
///   "shut down", "failed".
/// - CGM Service (`CGMStatusBits.description`, comma-separated bit names or "ok"; the driver's
///   own "session started" / "session stopped"): a session stopped, a sensor malfunction, a wrong
///   sensor type or a general fault (`CGMStatusBits.invalidatesResult`) end it; other bits
///   (calibration recommended, battery low...) leave it running.
public enum SensorLifecycle: Hashable, Sendable {
    case warmingUp
    case running
    /// Warmed up, but no glucose until a person calibrates (Dexcom G5 initial calibrations).
    case awaitingCalibration
    /// No glucose will come again from this sensor; the transmitter's words say why.
    case ended(reason: String)

    public init?(sensorState text: String) {
        switch text {
        case "warmup", "warming up": self = .warmingUp
        case "ok", "ready", "needs calibration", "needs calibration (outlier, 0x0E)", "session started": self = .running
        case "needs first initial calibration", "needs second initial calibration": self = .awaitingCalibration
        case "stopped", "session ended", "no sensor session", "transmitter problem",
             "not yet started", "expired", "shut down", "failed", "session stopped":
            self = .ended(reason: text)
        default:
            if text.hasPrefix("sensor failed (") {
                self = .ended(reason: text)
            } else if let bits = Self.cgmStatusBits(text) {
                self = bits.isDisjoint(with: .invalidatesResult) ? .running : .ended(reason: text)
            } else {
                return nil
            }
        }
    }

    /// What the alarm engine needs to know: awaiting calibration is a running session whose
    /// missing glucose signal loss reports (nothing watches glucose until a person acts).
    public var phase: SensorPhase {
        switch self {
        case .warmingUp: .warmingUp
        case .running, .awaitingCalibration: .running
        case .ended: .ended
        }
    }

    /// The CGM status bits a `CGMStatusBits.description` names, or nil if `text` is not one.
    /// The names are taken from the type itself, one bit at a time, so they cannot drift.
    static func cgmStatusBits(_ text: String) -> CGMStatusBits? {
        let parts = text.split(separator: ",").map { $0.trimmingSpaces }
        guard !parts.isEmpty else { return nil }
        var bits = CGMStatusBits()
        for part in parts {
            guard let bit = cgmBitNames[part] else { return nil }
            bits.insert(bit)
        }
        return bits
    }

    private static let cgmBitNames: [String: CGMStatusBits] = {
        var names: [String: CGMStatusBits] = [:]
        for index in 0..<24 {
            let bit = CGMStatusBits(rawValue: 1 << index)
            names[bit.description] = bit
        }
        return names
    }()
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
