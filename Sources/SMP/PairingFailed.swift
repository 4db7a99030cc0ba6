import Wire

extension SMP {
    /// Pairing Failed, code 0x05 (Core v5.4 Vol 3 Part H §3.5.5).
    public struct PairingFailed: PDU {
        public static let code = Code.pairingFailed
        public var reason: Reason

        public init(_ reason: Reason) { self.reason = reason }

        public init(parameters reader: inout ByteReader) throws(PDUError) {
            // A reserved reason is still a failure: keep it rather than reject the PDU, so the
            // pairing fails with what the peer said instead of a decode error.
            reason = Reason(rawValue: try reader.readSMPByte(of: Self.code))
        }

        public func writeParameters(into writer: inout ByteWriter) { writer.write(reason.rawValue) }

        /// The reasons of Vol 3 Part H §3.5.5, Table 3.7, plus any reserved value received.
        public enum Reason: Error, Sendable, Hashable, CustomStringConvertible {
            case passkeyEntryFailed  // 0x01
            case oobNotAvailable  // 0x02
            case authenticationRequirements  // 0x03
            case confirmValueFailed  // 0x04
            case pairingNotSupported  // 0x05
            case encryptionKeySize  // 0x06
            case commandNotSupported  // 0x07
            case unspecifiedReason  // 0x08
            case repeatedAttempts  // 0x09
            case invalidParameters  // 0x0A
            case dhKeyCheckFailed  // 0x0B
            case numericComparisonFailed  // 0x0C
            case brEdrPairingInProgress  // 0x0D
            case crossTransportKeyDerivationNotAllowed  // 0x0E
            case reserved(UInt8)

            public static let allDefined: [Reason] = (1...14).map { Reason(rawValue: UInt8($0)) }

            public init(rawValue: UInt8) {
                switch rawValue {
                case 0x01: self = .passkeyEntryFailed
                case 0x02: self = .oobNotAvailable
                case 0x03: self = .authenticationRequirements
                case 0x04: self = .confirmValueFailed
                case 0x05: self = .pairingNotSupported
                case 0x06: self = .encryptionKeySize
                case 0x07: self = .commandNotSupported
                case 0x08: self = .unspecifiedReason
                case 0x09: self = .repeatedAttempts
                case 0x0A: self = .invalidParameters
                case 0x0B: self = .dhKeyCheckFailed
                case 0x0C: self = .numericComparisonFailed
                case 0x0D: self = .brEdrPairingInProgress
                case 0x0E: self = .crossTransportKeyDerivationNotAllowed
                default: self = .reserved(rawValue)
                }
            }

            public var rawValue: UInt8 {
                switch self {
                case .passkeyEntryFailed: 0x01
                case .oobNotAvailable: 0x02
                case .authenticationRequirements: 0x03
                case .confirmValueFailed: 0x04
                case .pairingNotSupported: 0x05
                case .encryptionKeySize: 0x06
                case .commandNotSupported: 0x07
                case .unspecifiedReason: 0x08
                case .repeatedAttempts: 0x09
                case .invalidParameters: 0x0A
                case .dhKeyCheckFailed: 0x0B
                case .numericComparisonFailed: 0x0C
                case .brEdrPairingInProgress: 0x0D
                case .crossTransportKeyDerivationNotAllowed: 0x0E
                case let .reserved(value): value
                }
            }

            public var description: String {
                switch self {
                case .passkeyEntryFailed: "passkey entry failed"
                case .oobNotAvailable: "OOB not available"
                case .authenticationRequirements: "authentication requirements"
                case .confirmValueFailed: "confirm value failed"
                case .pairingNotSupported: "pairing not supported"
                case .encryptionKeySize: "encryption key size"
                case .commandNotSupported: "command not supported"
                case .unspecifiedReason: "unspecified reason"
                case .repeatedAttempts: "repeated attempts"
                case .invalidParameters: "invalid parameters"
                case .dhKeyCheckFailed: "DHKey check failed"
                case .numericComparisonFailed: "numeric comparison failed"
                case .brEdrPairingInProgress: "BR/EDR pairing in progress"
                case .crossTransportKeyDerivationNotAllowed: "cross-transport key derivation/generation not allowed"
                case let .reserved(value): "reserved reason 0x\(Hex.encode([value]))"
                }
            }
        }
    }
}
