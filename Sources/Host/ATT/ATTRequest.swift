import Bluetooth
import Wire

extension ATT {
    /// What a GATT client sends (Core v5.4 Vol 3 Part F §3.4). Encode-only on the client; the
    /// simulated server decodes these with its own independent parser.
    public enum Request: Sendable, Equatable {
        case exchangeMTU(clientRxMTU: UInt16)                                           // §3.4.2.1
        case findInformation(start: UInt16, end: UInt16)                                // §3.4.3.1
        case findByTypeValue(start: UInt16, end: UInt16, type: UInt16, value: [UInt8])  // §3.4.3.3
        case readByType(start: UInt16, end: UInt16, type: BluetoothUUID)                // §3.4.4.1
        case read(handle: UInt16)                                                        // §3.4.4.3
        case readBlob(handle: UInt16, offset: UInt16)                                    // §3.4.4.5
        case readByGroupType(start: UInt16, end: UInt16, type: BluetoothUUID)           // §3.4.4.9
        case write(handle: UInt16, value: [UInt8])                                       // §3.4.5.1

        public var opcode: UInt8 {
            switch self {
            case .exchangeMTU: Opcode.exchangeMTURequest
            case .findInformation: Opcode.findInformationRequest
            case .findByTypeValue: Opcode.findByTypeValueRequest
            case .readByType: Opcode.readByTypeRequest
            case .read: Opcode.readRequest
            case .readBlob: Opcode.readBlobRequest
            case .readByGroupType: Opcode.readByGroupTypeRequest
            case .write: Opcode.writeRequest
            }
        }

        public var bytes: [UInt8] {
            var w = ByteWriter()
            w.write(opcode)
            switch self {
            case .exchangeMTU(let mtu): w.write(mtu)
            case let .findInformation(start, end): w.write(start); w.write(end)
            case let .findByTypeValue(start, end, type, value):
                w.write(start); w.write(end); w.write(type); w.write(contentsOf: value)
            case let .readByType(start, end, type), let .readByGroupType(start, end, type):
                w.write(start); w.write(end); w.write(type)
            case let .read(handle): w.write(handle)
            case let .readBlob(handle, offset): w.write(handle); w.write(offset)
            case let .write(handle, value): w.write(handle); w.write(contentsOf: value)
            }
            return w.bytes
        }
    }

    /// ATT_WRITE_CMD (§3.4.5.3): no response, so it needs no transaction slot.
    public static func writeCommand(handle: UInt16, value: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: 3 + value.count)
        w.write(Opcode.writeCommand); w.write(handle); w.write(contentsOf: value)
        return w.bytes
    }

    /// ATT_HANDLE_VALUE_CFM (§3.4.7.3).
    public static let confirmation: [UInt8] = [Opcode.handleValueConfirmation]

    /// ATT_ERROR_RSP (§3.4.1.1), for the few requests a central's minimal server must refuse.
    public static func errorResponse(request: UInt8, handle: UInt16, error: ErrorCode) -> [UInt8] {
        var w = ByteWriter(capacity: 5)
        w.write(Opcode.errorResponse); w.write(request); w.write(handle); w.write(error.rawValue)
        return w.bytes
    }

    /// ATT_EXCHANGE_MTU_RSP (§3.4.2.2), answering a peer that asks us.
    public static func exchangeMTUResponse(serverRxMTU: UInt16) -> [UInt8] {
        var w = ByteWriter(capacity: 3)
        w.write(Opcode.exchangeMTUResponse); w.write(serverRxMTU)
        return w.bytes
    }
}
