import Bluetooth
import Wire

/// The Attribute Protocol (Core v5.4 Vol 3 Part F), as a GATT client uses it on the LE fixed
/// channel CID 0x0004.
public enum ATT {
    /// Default LE ATT_MTU (§3.2.8) and the largest an attribute value may be (§3.2.9).
    public static let defaultMTU = 23
    public static let maximumMTU = 517
    public static let maximumAttributeValueLength = 512
    /// Transaction timeout (§3.3.3): after it the bearer is dead and no more requests may be sent.
    public static let transactionTimeout: Duration = .seconds(30)

    /// Attribute opcodes (§3.4.8, Table 3.37).
    public enum Opcode {
        public static let errorResponse: UInt8 = 0x01
        public static let exchangeMTURequest: UInt8 = 0x02
        public static let exchangeMTUResponse: UInt8 = 0x03
        public static let findInformationRequest: UInt8 = 0x04
        public static let findInformationResponse: UInt8 = 0x05
        public static let findByTypeValueRequest: UInt8 = 0x06
        public static let findByTypeValueResponse: UInt8 = 0x07
        public static let readByTypeRequest: UInt8 = 0x08
        public static let readByTypeResponse: UInt8 = 0x09
        public static let readRequest: UInt8 = 0x0A
        public static let readResponse: UInt8 = 0x0B
        public static let readBlobRequest: UInt8 = 0x0C
        public static let readBlobResponse: UInt8 = 0x0D
        public static let readMultipleRequest: UInt8 = 0x0E
        public static let readByGroupTypeRequest: UInt8 = 0x10
        public static let readByGroupTypeResponse: UInt8 = 0x11
        public static let writeRequest: UInt8 = 0x12
        public static let writeResponse: UInt8 = 0x13
        public static let prepareWriteRequest: UInt8 = 0x16
        public static let executeWriteRequest: UInt8 = 0x18
        public static let handleValueNotification: UInt8 = 0x1B
        public static let handleValueIndication: UInt8 = 0x1D
        public static let handleValueConfirmation: UInt8 = 0x1E
        public static let writeCommand: UInt8 = 0x52
        public static let signedWriteCommand: UInt8 = 0xD2

        /// The response that answers a request (§3.4.8); nil for PDUs that are not requests.
        public static func response(to request: UInt8) -> UInt8? {
            switch request {
            case exchangeMTURequest, findInformationRequest, findByTypeValueRequest, readByTypeRequest,
                 readRequest, readBlobRequest, readByGroupTypeRequest, writeRequest:
                request + 1
            case prepareWriteRequest, executeWriteRequest, readMultipleRequest:
                request + 1
            default: nil
            }
        }

        /// Requests are even opcodes below 0x1E except notifications/indications; commands have
        /// bit 6 set (§3.3.1).
        public static func isRequest(_ opcode: UInt8) -> Bool { response(to: opcode) != nil || opcode == 0x20 }
        public static func isCommand(_ opcode: UInt8) -> Bool { opcode & 0x40 != 0 }
    }

    /// ATT error codes (§3.4.1.1, Table 3.4) as a typed error the GATT client reports.
    public struct ErrorCode: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public init(_ rawValue: UInt8) { self.rawValue = rawValue }

        public static let invalidHandle = ErrorCode(0x01)
        public static let readNotPermitted = ErrorCode(0x02)
        public static let writeNotPermitted = ErrorCode(0x03)
        public static let invalidPDU = ErrorCode(0x04)
        public static let insufficientAuthentication = ErrorCode(0x05)
        public static let requestNotSupported = ErrorCode(0x06)
        public static let invalidOffset = ErrorCode(0x07)
        public static let insufficientAuthorization = ErrorCode(0x08)
        public static let prepareQueueFull = ErrorCode(0x09)
        public static let attributeNotFound = ErrorCode(0x0A)
        public static let attributeNotLong = ErrorCode(0x0B)
        public static let insufficientEncryptionKeySize = ErrorCode(0x0C)
        public static let invalidAttributeValueLength = ErrorCode(0x0D)
        public static let unlikelyError = ErrorCode(0x0E)
        public static let insufficientEncryption = ErrorCode(0x0F)
        public static let unsupportedGroupType = ErrorCode(0x10)
        public static let insufficientResources = ErrorCode(0x11)
        public static let databaseOutOfSync = ErrorCode(0x12)
        public static let valueNotAllowed = ErrorCode(0x13)

        /// Errors that pairing (or re-encryption) cures.
        public var needsSecurity: Bool {
            self == .insufficientAuthentication || self == .insufficientEncryption || self == .insufficientEncryptionKeySize
        }

        public var description: String {
            let name: String = switch rawValue {
            case 0x01: "invalid handle"
            case 0x02: "read not permitted"
            case 0x03: "write not permitted"
            case 0x04: "invalid PDU"
            case 0x05: "insufficient authentication"
            case 0x06: "request not supported"
            case 0x07: "invalid offset"
            case 0x08: "insufficient authorization"
            case 0x09: "prepare queue full"
            case 0x0A: "attribute not found"
            case 0x0B: "attribute not long"
            case 0x0C: "insufficient encryption key size"
            case 0x0D: "invalid attribute value length"
            case 0x0E: "unlikely error"
            case 0x0F: "insufficient encryption"
            case 0x10: "unsupported group type"
            case 0x11: "insufficient resources"
            case 0x12: "database out of sync"
            case 0x13: "value not allowed"
            case 0x80...0x9F: "application error"
            case 0xFC: "write request rejected"
            case 0xFD: "CCCD improperly configured"
            case 0xFE: "procedure already in progress"
            case 0xFF: "out of range"
            default: "reserved error"
            }
            let hex = String(rawValue, radix: 16)
            return "\(name) (0x\(hex.count < 2 ? "0" : "")\(hex))"
        }
    }
}
