import Wire

/// CGM Specific Ops Control Point, characteristic 0x2AAC (write + indicate): op code u8 ·
/// operand · [E2E-CRC] (gatt-xml `cgm_specific_ops_control_point.xml`; RivieraWaves
/// `cgmp_common.h`; docs/protocols/sig-cgm.md §Specific Ops Control Point). Vigil uses only start
/// (26) and stop (27) session; the gatt-xml text names the response op 0x0F in places, a typo for
/// 28 (0x1C), which its own enumeration and RivieraWaves use.
public enum CGMSpecificOpsControlPoint {
    public enum Opcode: UInt8, Hashable, Sendable {
        case startSession = 26
        case stopSession = 27
        case responseCode = 28
    }

    /// Result codes of op 28.
    public struct ResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = Self(rawValue: 1)
        public static let opCodeNotSupported = Self(rawValue: 2)
        public static let invalidOperand = Self(rawValue: 3)
        public static let procedureNotCompleted = Self(rawValue: 4)
        public static let parameterOutOfRange = Self(rawValue: 5)

        public var description: String {
            let names = ["reserved 0", "success", "op code not supported", "invalid operand", "procedure not completed",
                         "parameter out of range"]
            return Int(rawValue) < names.count ? names[Int(rawValue)] : "reserved \(rawValue)"
        }
    }

    /// A request with no operand (start or stop session), with the E2E-CRC when the sensor
    /// announces it (a CRC-less write is then refused with ATT error 0x80 Missing CRC).
    public static func request(_ opcode: Opcode, withCRC: Bool) -> [UInt8] {
        withCRC ? CGME2ECRC.appending(to: [opcode.rawValue]) : [opcode.rawValue]
    }

    /// A response-code indication: `1C <request op> <result>` [E2E-CRC].
    public struct Response: Hashable, Sendable {
        public var requestOpcode: UInt8
        public var code: ResponseCode

        public init(requestOpcode: UInt8, code: ResponseCode) {
            self.requestOpcode = requestOpcode
            self.code = code
        }

        public init(decoding bytes: [UInt8], crcRequired: Bool) throws(WireError) {
            var reader = ByteReader(try CGME2ECRC.payload(of: bytes, length: 3, required: crcRequired, what: "CGM SOCP response"))
            let opcode = try reader.readUInt8("CGM SOCP op code")
            guard opcode == Opcode.responseCode.rawValue else { throw .invalidValue(field: "CGM SOCP response op code", value: Int(opcode)) }
            requestOpcode = try reader.readUInt8("CGM SOCP request op code")
            code = ResponseCode(rawValue: try reader.readUInt8("CGM SOCP result"))
        }
    }
}
