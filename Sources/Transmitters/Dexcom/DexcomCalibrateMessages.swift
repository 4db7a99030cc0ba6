import Wire

// Calibrating a G5/G6 with a fingerstick (docs/dexcom.md "Calibration"): 0x34 on Control,
// answered by 0x35 (CGMBLEKit CalibrateGlucoseTxMessage/RxMessage; xDrip CalibrateTxMessage and
// CalibrateRxMessage.java).

extension Dexcom {
    /// 0x34 CalibrateGlucoseTx, 9 bytes: opcode · glucose u16 (mg/dL) · time u32 (dex s: when
    /// the blood was taken, on the transmitter's clock) · CRC.
    public struct CalibrateGlucoseTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x34
        public var glucoseMilligramsPerDeciliter: UInt16
        public var time: DexTime

        public init(glucoseMilligramsPerDeciliter: UInt16, time: DexTime) {
            self.glucoseMilligramsPerDeciliter = glucoseMilligramsPerDeciliter
            self.time = time
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [9], name: "CalibrateGlucoseTx")
            glucoseMilligramsPerDeciliter = try r.readUInt16("glucose")
            time = try r.readUInt32("time")
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(Self.opcode); w.write(glucoseMilligramsPerDeciliter); w.write(time)
            return Dexcom.withCRC(w.bytes)
        }
    }

    /// 0x35 CalibrateGlucoseRx, 5 bytes: opcode · status · result · CRC.
    public struct CalibrateGlucoseRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x35
        public var status: TransmitterStatus
        public var result: CalibrationResult

        public init(status: TransmitterStatus = .init(rawValue: 0), result: CalibrationResult) {
            self.status = status
            self.result = result
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var r = try Dexcom.controlReader(bytes, opcodes: [Self.opcode], lengths: [5], name: "CalibrateGlucoseRx")
            status = TransmitterStatus(rawValue: try r.readUInt8("status"))
            result = CalibrationResult(rawValue: try r.readUInt8("result"))
        }

        public var bytes: [UInt8] { Dexcom.withCRC([Self.opcode, status.rawValue, result.rawValue]) }
    }

    /// The result byte of 0x35, named as xDrip's CalibrateRxMessage does. xDrip counts 0x00,
    /// 0x06 and 0x0D as accepted: 0x06 asks for a second calibration, 0x0D says the transmitter
    /// already has this one (a retry after a dropped link is therefore harmless).
    public struct CalibrationResult: Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public var isAccepted: Bool { [0x00, 0x06, 0x0D].contains(rawValue) }

        public var description: String {
            switch rawValue {
            case 0x00: "accepted"
            case 0x01: "code 1"
            case 0x06: "accepted; a second calibration is needed"
            case 0x08: "rejected"
            case 0x0B: "sensor stopped"
            case 0x0D: "duplicate (already accepted)"
            case 0x0E: "not ready"
            default: "result 0x\(String(rawValue, radix: 16, uppercase: true))"
            }
        }
    }
}
