extension Dexcom {
    /// Byte 12 of a glucose reply and byte 6 of a backfill record: the transmitter's algorithm
    /// state (docs/protocols/dexcom-g5-g6.md §Calibration state and trend; names mostly from
    /// CGMBLEKit CalibrationState.swift and xDrip CalibrationState.java, which disagree above 0x0E;
    /// the raw value is always kept). The G7 family reports the same states and adds 0x12 to
    /// 0x19 (docs/protocols/dexcom-g7.md §Glucose; G7SensorKit `AlgorithmState.swift`).
    public struct CalibrationState: Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let stopped = Self(rawValue: 0x01)
        public static let warmup = Self(rawValue: 0x02)
        public static let ok = Self(rawValue: 0x06)
        public static let needsCalibration = Self(rawValue: 0x07)

        /// Whether the glucose value may reach history and the alarms: 0x06 OK and 0x07 "needs
        /// calibration", the set xDrip (`usableGlucose`) and xdrip-js agree on. CGMBLEKit also
        /// trusts 0x0E (an outlier calibration request); Vigil does not, because an alarm
        /// acting on a value the transmitter itself doubts is worse than a reported gap
        /// (the reading becomes an info event naming the state instead).
        public var hasUsableGlucose: Bool { rawValue == 0x06 || rawValue == 0x07 }

        public var description: String {
            switch rawValue {
            case 0x00: "unknown"
            case 0x01: "stopped"
            case 0x02: "warmup"
            case 0x03: "excess noise"
            case 0x04: "needs first initial calibration"
            case 0x05: "needs second initial calibration"
            case 0x06: "ok"
            case 0x07: "needs calibration"
            case 0x08, 0x09, 0x0A, 0x0D: "calibration error (0x\(hex))"
            case 0x0B, 0x0C, 0x10, 0x13, 0x14, 0x15, 0x16, 0x19: "sensor failed (0x\(hex))"
            case 0x0E: "needs calibration (outlier, 0x0E)"
            case 0x0F: "session ended"
            case 0x11: "transmitter problem"
            case 0x12: "temporary sensor issue"
            case 0x18: "expired"
            default: "state 0x\(hex)"
            }
        }

        private var hex: String {
            let text = String(rawValue, radix: 16, uppercase: true)
            return text.count < 2 ? "0" + text : text
        }
    }
}
