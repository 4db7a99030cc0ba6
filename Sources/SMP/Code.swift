import Wire

extension SMP {
    /// The SMP command codes (Core v5.4 Vol 3 Part H §3.3, Table 3.1).
    public enum Code: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        case pairingRequest = 0x01
        case pairingResponse = 0x02
        case pairingConfirm = 0x03
        case pairingRandom = 0x04
        case pairingFailed = 0x05
        case encryptionInformation = 0x06
        case centralIdentification = 0x07
        case identityInformation = 0x08
        case identityAddressInformation = 0x09
        case signingInformation = 0x0A
        case securityRequest = 0x0B
        case pairingPublicKey = 0x0C
        case pairingDHKeyCheck = 0x0D
        case keypressNotification = 0x0E

        /// The whole PDU length including the code octet; every SMP command is fixed-size.
        public var pduLength: Int {
            switch self {
            case .pairingRequest, .pairingResponse: 7
            case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation,
                .signingInformation, .pairingDHKeyCheck: 17
            case .pairingFailed, .securityRequest, .keypressNotification: 2
            case .centralIdentification: 11
            case .identityAddressInformation: 8
            case .pairingPublicKey: 65
            }
        }

        public var description: String {
            switch self {
            case .pairingRequest: "Pairing Request"
            case .pairingResponse: "Pairing Response"
            case .pairingConfirm: "Pairing Confirm"
            case .pairingRandom: "Pairing Random"
            case .pairingFailed: "Pairing Failed"
            case .encryptionInformation: "Encryption Information"
            case .centralIdentification: "Central Identification"
            case .identityInformation: "Identity Information"
            case .identityAddressInformation: "Identity Address Information"
            case .signingInformation: "Signing Information"
            case .securityRequest: "Security Request"
            case .pairingPublicKey: "Pairing Public Key"
            case .pairingDHKeyCheck: "Pairing DHKey Check"
            case .keypressNotification: "Keypress Notification"
            }
        }
    }

    /// Why an SMP PDU could not be decoded. The state machines map `unknownCode` to Pairing
    /// Failed "command not supported" and everything else to "invalid parameters" (Vol 3
    /// Part H §3.5.5: "the command length is invalid or a parameter is outside of the
    /// specified range").
    public enum PDUError: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case unknownCode(UInt8)
        case wrongCode(expected: Code, actual: UInt8)
        /// `actual` and `expected` count the whole PDU, code octet included.
        case wrongLength(Code, expected: Int, actual: Int)
        case invalidValue(Code, field: String, value: Int)

        public var description: String {
            switch self {
            case .empty: "empty SMP PDU"
            case let .unknownCode(code): "unknown SMP code 0x\(Hex.encode([code]))"
            case let .wrongCode(expected, actual): "expected \(expected), got code 0x\(Hex.encode([actual]))"
            case let .wrongLength(code, expected, actual): "\(code) must be \(expected) bytes, got \(actual)"
            case let .invalidValue(code, field, value): "\(code): invalid \(field) \(value)"
            }
        }
    }

    /// One SMP command: a code octet followed by fixed-size parameters (Vol 3 Part H §3.3).
    public protocol PDU: Sendable, Equatable {
        static var code: Code { get }
        /// Reads the parameters; the reader holds exactly `code.pduLength - 1` bytes.
        init(parameters reader: inout ByteReader) throws(PDUError)
        func writeParameters(into writer: inout ByteWriter)
    }
}

extension SMP.PDU {
    /// Decodes a whole PDU as it arrives on CID 0x0006 (code octet first).
    public init(decoding pdu: [UInt8]) throws(SMP.PDUError) {
        guard let first = pdu.first else { throw .empty }
        guard first == Self.code.rawValue else { throw .wrongCode(expected: Self.code, actual: first) }
        guard pdu.count == Self.code.pduLength else {
            throw .wrongLength(Self.code, expected: Self.code.pduLength, actual: pdu.count)
        }
        var reader = ByteReader(pdu, range: 1..<pdu.count)
        try self.init(parameters: &reader)
    }

    /// The whole PDU, code octet first.
    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.code.pduLength)
        writer.write(Self.code.rawValue)
        writeParameters(into: &writer)
        return writer.bytes
    }
}

extension ByteReader {
    /// Reads a fixed-size SMP field. The PDU length was checked before the parameters are
    /// read, so running short here means a decoder reads more than its `pduLength` says.
    mutating func readSMPField(_ count: Int, of code: SMP.Code) throws(SMP.PDUError) -> [UInt8] {
        do {
            return try readBytes(count, "SMP field")
        } catch {
            throw .wrongLength(code, expected: code.pduLength, actual: bytes.count)
        }
    }

    mutating func readSMPByte(of code: SMP.Code) throws(SMP.PDUError) -> UInt8 {
        try readSMPField(1, of: code)[0]
    }
}
