extension Dexcom {
    /// A Control request that is just an opcode and its CRC (docs/protocols/dexcom-g5-g6.md
    /// §Framing and CRC table, whose ready-to-send bytes the tests check), with the reply opcode it
    /// expects.
    public enum ControlRequest: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// 0x24 → 0x25.
        case transmitterTime = 0x24
        /// 0x30 → 0x31, G5 firmware.
        case glucoseG5 = 0x30
        /// 0x4E → 0x4F, G6 firmware (xDrip libkeks Config `ONE_GET_DATA_4E_CMD`).
        case glucoseG6 = 0x4E
        /// 0x2E → 0x2F.
        case sensor = 0x2E
        /// 0x22 → 0x23.
        case battery = 0x22
        /// 0x32 → 0x33.
        case calibrationData = 0x32
        /// 0x20 → 0x21 ("Version 0", xDrip VersionRequestTxMessage).
        case firmwareVersion = 0x20
        /// 0x4A → 0x4B ("Version 1", CGMBLEKit TransmitterVersionTxMessage).
        case transmitterVersion = 0x4A
        /// 0x42 → 0x43. Vigil never sends it; listed so the bytes are tested once.
        case reset = 0x42

        /// Opcode followed by its CRC-16/XMODEM, low byte first.
        public var bytes: [UInt8] { Dexcom.withCRC([rawValue]) }

        /// The opcode of the answer, which arrives as an indication on Control.
        public var replyOpcode: UInt8 { rawValue + 1 }

        /// What a session is for: the glucose, and the transmitter time it is dated by. The
        /// rest is good to know, and a transmitter that leaves it unanswered (seen with
        /// CalibrationDataTx) must not cost the glucose or the backfill.
        public var isNeededForGlucose: Bool { self == .transmitterTime || self == .glucoseG5 || self == .glucoseG6 }

        public var description: String {
            switch self {
            case .transmitterTime: "TransmitterTimeTx (0x24)"
            case .glucoseG5: "GlucoseTx (0x30)"
            case .glucoseG6: "GlucoseTx G6 (0x4E)"
            case .sensor: "SensorTx (0x2E)"
            case .battery: "BatteryStatusTx (0x22)"
            case .calibrationData: "CalibrationDataTx (0x32)"
            case .firmwareVersion: "VersionRequestTx (0x20)"
            case .transmitterVersion: "TransmitterVersionTx (0x4A)"
            case .reset: "ResetTx (0x42)"
            }
        }
    }
}
