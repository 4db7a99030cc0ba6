import Wire

extension SMP {
    /// Any SMP command as received on CID 0x0006 (Core v5.4 Vol 3 Part H §3.3): decode once,
    /// then switch.
    public enum Command: Sendable, Equatable {
        case pairingRequest(PairingRequest)
        case pairingResponse(PairingResponse)
        case pairingConfirm(PairingConfirm)
        case pairingRandom(PairingRandom)
        case pairingFailed(PairingFailed)
        case encryptionInformation(EncryptionInformation)
        case centralIdentification(CentralIdentification)
        case identityInformation(IdentityInformation)
        case identityAddressInformation(IdentityAddressInformation)
        case signingInformation(SigningInformation)
        case securityRequest(SecurityRequest)
        case pairingPublicKey(PairingPublicKey)
        case pairingDHKeyCheck(PairingDHKeyCheck)
        case keypressNotification(KeypressNotification)

        public init(decoding pdu: [UInt8]) throws(PDUError) {
            guard let first = pdu.first else { throw .empty }
            guard let code = Code(rawValue: first) else { throw .unknownCode(first) }
            switch code {
            case .pairingRequest: self = .pairingRequest(try .init(decoding: pdu))
            case .pairingResponse: self = .pairingResponse(try .init(decoding: pdu))
            case .pairingConfirm: self = .pairingConfirm(try .init(decoding: pdu))
            case .pairingRandom: self = .pairingRandom(try .init(decoding: pdu))
            case .pairingFailed: self = .pairingFailed(try .init(decoding: pdu))
            case .encryptionInformation: self = .encryptionInformation(try .init(decoding: pdu))
            case .centralIdentification: self = .centralIdentification(try .init(decoding: pdu))
            case .identityInformation: self = .identityInformation(try .init(decoding: pdu))
            case .identityAddressInformation: self = .identityAddressInformation(try .init(decoding: pdu))
            case .signingInformation: self = .signingInformation(try .init(decoding: pdu))
            case .securityRequest: self = .securityRequest(try .init(decoding: pdu))
            case .pairingPublicKey: self = .pairingPublicKey(try .init(decoding: pdu))
            case .pairingDHKeyCheck: self = .pairingDHKeyCheck(try .init(decoding: pdu))
            case .keypressNotification: self = .keypressNotification(try .init(decoding: pdu))
            }
        }

        public var code: Code {
            switch self {
            case .pairingRequest: .pairingRequest
            case .pairingResponse: .pairingResponse
            case .pairingConfirm: .pairingConfirm
            case .pairingRandom: .pairingRandom
            case .pairingFailed: .pairingFailed
            case .encryptionInformation: .encryptionInformation
            case .centralIdentification: .centralIdentification
            case .identityInformation: .identityInformation
            case .identityAddressInformation: .identityAddressInformation
            case .signingInformation: .signingInformation
            case .securityRequest: .securityRequest
            case .pairingPublicKey: .pairingPublicKey
            case .pairingDHKeyCheck: .pairingDHKeyCheck
            case .keypressNotification: .keypressNotification
            }
        }

        public var encoded: [UInt8] {
            switch self {
            case let .pairingRequest(p): p.encoded
            case let .pairingResponse(p): p.encoded
            case let .pairingConfirm(p): p.encoded
            case let .pairingRandom(p): p.encoded
            case let .pairingFailed(p): p.encoded
            case let .encryptionInformation(p): p.encoded
            case let .centralIdentification(p): p.encoded
            case let .identityInformation(p): p.encoded
            case let .identityAddressInformation(p): p.encoded
            case let .signingInformation(p): p.encoded
            case let .securityRequest(p): p.encoded
            case let .pairingPublicKey(p): p.encoded
            case let .pairingDHKeyCheck(p): p.encoded
            case let .keypressNotification(p): p.encoded
            }
        }
    }
}
