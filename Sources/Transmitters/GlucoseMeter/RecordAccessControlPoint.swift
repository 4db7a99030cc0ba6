import Wire

/// Record Access Control Point, characteristic 0x2A52 (write + indicate), shared by the Glucose
/// Service and the CGM Service (gatt-xml `record_access_control_point.xml`; NordicCommon
/// `RecordAccessControlPointData`; docs/protocols/sig-glucose.md §Record Access Control Point;
/// docs/protocols/sig-cgm.md): op code u8 · operator u8 · operand.
///
/// Filter type 0x01 names the u16 key records are ordered by: the sequence number in GLS, the
/// time offset in CGMS (RivieraWaves `cgmp_racp_filter`; NordicCommon `FilterType`). CGMS adds an
/// E2E-CRC after the operand when its feature says so; `CGMServiceDriver` handles that framing.
public enum RACP {
    public enum Opcode: UInt8, Hashable, Sendable {
        case reportStoredRecords = 1
        case deleteStoredRecords = 2
        case abortOperation = 3
        case reportNumberOfStoredRecords = 4
        case numberOfStoredRecordsResponse = 5
        case responseCode = 6
    }

    public enum Operator: UInt8, Hashable, Sendable {
        case null = 0
        case allRecords = 1
        case lessThanOrEqual = 2
        case greaterThanOrEqual = 3
        case withinRange = 4
        case firstRecord = 5
        case lastRecord = 6
    }

    /// A response code (operand of op code 6); unknown values are kept as sent.
    public struct ResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = Self(rawValue: 1)
        public static let opCodeNotSupported = Self(rawValue: 2)
        public static let invalidOperator = Self(rawValue: 3)
        public static let operatorNotSupported = Self(rawValue: 4)
        public static let invalidOperand = Self(rawValue: 5)
        public static let noRecordsFound = Self(rawValue: 6)
        public static let abortUnsuccessful = Self(rawValue: 7)
        public static let procedureNotCompleted = Self(rawValue: 8)
        public static let operandNotSupported = Self(rawValue: 9)

        public var description: String {
            let names = ["reserved 0", "success", "op code not supported", "invalid operator", "operator not supported",
                         "invalid operand", "no records found", "abort unsuccessful", "procedure not completed",
                         "operand not supported"]
            return Int(rawValue) < names.count ? names[Int(rawValue)] : "reserved \(rawValue)"
        }
    }

    /// What Vigil writes.
    public enum Request: Hashable, Sendable {
        /// `01 01`
        case reportAllRecords
        /// `01 06`: the newest stored record only (operator 6 "last record", no operand).
        case reportLastRecord
        /// `01 03 01 <u16>`: records whose sequence number (GLS) or time offset (CGMS) is ≥ the value.
        case reportRecords(atLeast: UInt16)
        /// `03 00`
        case abort
        /// `04 01`
        case reportNumberOfAllRecords

        public var encoded: [UInt8] {
            switch self {
            case .reportAllRecords: return [Opcode.reportStoredRecords.rawValue, Operator.allRecords.rawValue]
            case .reportLastRecord: return [Opcode.reportStoredRecords.rawValue, Operator.lastRecord.rawValue]
            case let .reportRecords(value):
                var writer = ByteWriter()
                writer.write(Opcode.reportStoredRecords.rawValue)
                writer.write(Operator.greaterThanOrEqual.rawValue)
                writer.write(UInt8(0x01))  // filter type: sequence number / time offset
                writer.write(value)
                return writer.bytes
            case .abort: return [Opcode.abortOperation.rawValue, Operator.null.rawValue]
            case .reportNumberOfAllRecords: return [Opcode.reportNumberOfStoredRecords.rawValue, Operator.allRecords.rawValue]
            }
        }

        public var opcode: Opcode {
            switch self {
            case .reportAllRecords, .reportLastRecord, .reportRecords: .reportStoredRecords
            case .abort: .abortOperation
            case .reportNumberOfAllRecords: .reportNumberOfStoredRecords
            }
        }
    }

    /// What the server indicates: `06 00 <request op> <code>` or `05 00 <u16 count>`.
    public enum Response: Hashable, Sendable {
        case responseCode(request: UInt8, code: ResponseCode)
        case numberOfStoredRecords(UInt16)

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = ByteReader(bytes)
            let opcode = try reader.readUInt8("RACP op code")
            let op = try reader.readUInt8("RACP operator")
            // The spec puts Null (0) here in both responses; anything else is a different PDU.
            guard op == Operator.null.rawValue else { throw .invalidValue(field: "RACP response operator", value: Int(op)) }
            switch Opcode(rawValue: opcode) {
            case .responseCode:
                let request = try reader.readUInt8("RACP request op code")
                self = .responseCode(request: request, code: ResponseCode(rawValue: try reader.readUInt8("RACP response code")))
            case .numberOfStoredRecordsResponse:
                self = .numberOfStoredRecords(try reader.readUInt16("RACP number of records"))
            default:
                throw .invalidValue(field: "RACP response op code", value: Int(opcode))
            }
            try reader.expectEnd("RACP response")
        }
    }
}
