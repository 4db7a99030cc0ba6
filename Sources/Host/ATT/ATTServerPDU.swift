import Bluetooth
import Wire

extension ATT {
    /// A PDU arriving at the client from the peer's server — or a request from the peer's own
    /// client role, which we must answer (§3.3: both roles share the bearer).
    public enum InboundPDU: Sendable, Equatable {
        case errorResponse(request: UInt8, handle: UInt16, error: ErrorCode)      // §3.4.1.1
        case exchangeMTUResponse(serverRxMTU: UInt16)                              // §3.4.2.2
        case findInformationResponse([HandleUUID])                                 // §3.4.3.2
        case findByTypeValueResponse([HandleRange])                                // §3.4.3.4
        case readByTypeResponse([HandleValue])                                     // §3.4.4.2
        case readResponse([UInt8])                                                 // §3.4.4.4
        case readBlobResponse([UInt8])                                             // §3.4.4.6
        case readByGroupTypeResponse([GroupValue])                                 // §3.4.4.10
        case writeResponse                                                         // §3.4.5.2
        case notification(handle: UInt16, value: [UInt8])                         // §3.4.7.1
        case indication(handle: UInt16, value: [UInt8])                            // §3.4.7.2
        /// A request from the peer's client role (it expects a response from us).
        case peerRequest(opcode: UInt8, parameters: [UInt8])
        /// A command or confirmation from the peer's client role (no response expected).
        case peerCommand(opcode: UInt8)

        public struct HandleUUID: Sendable, Equatable {
            public var handle: UInt16
            public var uuid: BluetoothUUID
        }

        public struct HandleRange: Sendable, Equatable {
            public var start: UInt16
            public var end: UInt16
        }

        public struct HandleValue: Sendable, Equatable {
            public var handle: UInt16
            public var value: [UInt8]
        }

        public struct GroupValue: Sendable, Equatable {
            public var start: UInt16
            public var end: UInt16
            public var value: [UInt8]
        }

        /// The response opcode this PDU carries, if it is a response.
        public var responseOpcode: UInt8? {
            switch self {
            case .errorResponse: Opcode.errorResponse
            case .exchangeMTUResponse: Opcode.exchangeMTUResponse
            case .findInformationResponse: Opcode.findInformationResponse
            case .findByTypeValueResponse: Opcode.findByTypeValueResponse
            case .readByTypeResponse: Opcode.readByTypeResponse
            case .readResponse: Opcode.readResponse
            case .readBlobResponse: Opcode.readBlobResponse
            case .readByGroupTypeResponse: Opcode.readByGroupTypeResponse
            case .writeResponse: Opcode.writeResponse
            default: nil
            }
        }

        public init(bytes: [UInt8]) throws(WireError) {
            var r = ByteReader(bytes)
            let opcode = try r.readUInt8("ATT opcode")
            switch opcode {
            case Opcode.errorResponse:
                let request = try r.readUInt8("Request Opcode In Error")
                let handle = try r.readUInt16("Attribute Handle In Error")
                self = .errorResponse(request: request, handle: handle, error: ErrorCode(try r.readUInt8("Error Code")))
                try r.expectEnd("ATT_ERROR_RSP")
            case Opcode.exchangeMTUResponse:
                self = .exchangeMTUResponse(serverRxMTU: try r.readUInt16("Server Rx MTU"))
                try r.expectEnd("ATT_EXCHANGE_MTU_RSP")
            case Opcode.findInformationResponse:
                let format = try r.readUInt8("Format")
                guard format == 1 || format == 2 else { throw .invalidValue(field: "Find Information format", value: Int(format)) }
                let width = format == 1 ? 2 : 16
                guard r.remainingCount > 0, r.remainingCount % (2 + width) == 0 else {
                    throw .malformed("ATT_FIND_INFORMATION_RSP: \(r.remainingCount) byte(s) is not a whole number of \(2 + width)-byte entries")
                }
                var entries: [HandleUUID] = []
                while !r.isAtEnd {
                    let handle = try r.readUInt16("Handle")
                    let uuid = BluetoothUUID(wireBytes: try r.readBytes(width, "UUID"))!
                    entries.append(HandleUUID(handle: handle, uuid: uuid))
                }
                self = .findInformationResponse(entries)
            case Opcode.findByTypeValueResponse:
                guard r.remainingCount > 0, r.remainingCount % 4 == 0 else {
                    throw .malformed("ATT_FIND_BY_TYPE_VALUE_RSP: \(r.remainingCount) byte(s) is not a whole number of 4-byte entries")
                }
                var entries: [HandleRange] = []
                while !r.isAtEnd {
                    entries.append(HandleRange(start: try r.readUInt16("Found Attribute Handle"), end: try r.readUInt16("Group End Handle")))
                }
                self = .findByTypeValueResponse(entries)
            case Opcode.readByTypeResponse:
                let length = Int(try r.readUInt8("Length"))
                guard length >= 2, r.remainingCount > 0, r.remainingCount % length == 0 else {
                    throw .malformed("ATT_READ_BY_TYPE_RSP: entry length \(length) does not divide \(r.remainingCount) byte(s)")
                }
                var entries: [HandleValue] = []
                while !r.isAtEnd {
                    let handle = try r.readUInt16("Attribute Handle")
                    entries.append(HandleValue(handle: handle, value: try r.readBytes(length - 2, "Attribute Value")))
                }
                self = .readByTypeResponse(entries)
            case Opcode.readResponse:
                self = .readResponse(r.readRemaining())
            case Opcode.readBlobResponse:
                self = .readBlobResponse(r.readRemaining())
            case Opcode.readByGroupTypeResponse:
                let length = Int(try r.readUInt8("Length"))
                guard length >= 4, r.remainingCount > 0, r.remainingCount % length == 0 else {
                    throw .malformed("ATT_READ_BY_GROUP_TYPE_RSP: entry length \(length) does not divide \(r.remainingCount) byte(s)")
                }
                var entries: [GroupValue] = []
                while !r.isAtEnd {
                    let start = try r.readUInt16("Attribute Handle")
                    let end = try r.readUInt16("End Group Handle")
                    entries.append(GroupValue(start: start, end: end, value: try r.readBytes(length - 4, "Attribute Value")))
                }
                self = .readByGroupTypeResponse(entries)
            case Opcode.writeResponse:
                self = .writeResponse
                try r.expectEnd("ATT_WRITE_RSP")
            case Opcode.handleValueNotification:
                let handle = try r.readUInt16("Attribute Handle")
                self = .notification(handle: handle, value: r.readRemaining())
            case Opcode.handleValueIndication:
                let handle = try r.readUInt16("Attribute Handle")
                self = .indication(handle: handle, value: r.readRemaining())
            default:
                if Opcode.isRequest(opcode) {
                    self = .peerRequest(opcode: opcode, parameters: r.readRemaining())
                } else if Opcode.isCommand(opcode) || opcode == Opcode.handleValueConfirmation {
                    self = .peerCommand(opcode: opcode)
                } else {
                    throw .invalidValue(field: "ATT opcode", value: Int(opcode))
                }
            }
        }
    }
}
