/// Why a read, write or subscription the driver asked for did not happen.
public enum OperationFailure: Hashable, Sendable, CustomStringConvertible {
    /// The peer answered with an ATT Error Response (Core v5.4 Vol 3 Part F §3.4.1.1).
    case attError(code: UInt8)
    /// No response within the ATT transaction timeout (30 s, Core v5.4 Vol 3 Part F §3.3.3).
    case timedOut
    /// The characteristic was not discovered, or lacks the property the operation needs.
    case unsupported(String)
    case other(String)

    /// ATT error codes that pairing and encryption cure (Core v5.4 Vol 3 Part F §3.4.1.1):
    /// 0x05 Insufficient Authentication, 0x0C Insufficient Encryption Key Size,
    /// 0x0F Insufficient Encryption. 0x08 Insufficient Authorization is not one of them:
    /// authorization is the server application's decision, not the link's.
    public var isCuredByPairing: Bool {
        if case let .attError(code) = self { return code == 0x05 || code == 0x0C || code == 0x0F }
        return false
    }

    public var description: String {
        switch self {
        case let .attError(code):
            let hex = String(code, radix: 16, uppercase: true)
            let name = switch code {
            case 0x02: " (read not permitted)"
            case 0x03: " (write not permitted)"
            case 0x05: " (insufficient authentication)"
            case 0x06: " (request not supported)"
            case 0x08: " (insufficient authorization)"
            case 0x0A: " (attribute not found)"
            case 0x0C: " (insufficient encryption key size)"
            case 0x0F: " (insufficient encryption)"
            default: ""
            }
            return "ATT error 0x\(hex.count < 2 ? "0" + hex : hex)\(name)"
        case .timedOut: return "timed out"
        case let .unsupported(reason): return "unsupported: \(reason)"
        case let .other(reason): return reason
        }
    }
}
