import Wire

extension SMP {
    /// IO capability (Core v5.4 Vol 3 Part H §3.5.1, Table 3.4).
    public enum IOCapability: UInt8, Sendable, CaseIterable {
        case displayOnly = 0x00
        case displayYesNo = 0x01
        case keyboardOnly = 0x02
        case noInputNoOutput = 0x03
        case keyboardDisplay = 0x04
    }

    /// The AuthReq octet (Vol 3 Part H §3.5.1, Figure 3.3): bonding flags (bits 0–1, 01 =
    /// bonding), MITM (bit 2), SC (bit 3), keypress (bit 4), CT2 (bit 5). Reserved bits are
    /// kept as received so f6's IOcap uses the exact octet the peer sent.
    public struct AuthenticationRequirements: OptionSet, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let bonding = Self(rawValue: 0x01)
        public static let mitm = Self(rawValue: 0x04)
        public static let secureConnections = Self(rawValue: 0x08)
        public static let keypress = Self(rawValue: 0x10)
        public static let ct2 = Self(rawValue: 0x20)

        /// Bonding flags 01; 10 and 11 are reserved and count as no bonding.
        public var requestsBonding: Bool { rawValue & 0x03 == 0x01 }
    }

    /// Initiator/Responder Key Distribution (Vol 3 Part H §3.6.1, Figure 3.11).
    public struct KeyDistribution: OptionSet, Sendable, Hashable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// LE legacy: LTK, EDIV and Rand (Encryption Information + Central Identification).
        /// Ignored in LE Secure Connections, whose LTK is derived by both sides.
        public static let encryptionKey = Self(rawValue: 0x01)
        /// IRK and identity address (Identity Information + Identity Address Information).
        public static let identityKey = Self(rawValue: 0x02)
        /// CSRK (Signing Information).
        public static let signingKey = Self(rawValue: 0x04)
        /// Derive a BR/EDR link key; Vigil is LE-only and never sets it.
        public static let linkKey = Self(rawValue: 0x08)
    }

    /// The six parameters shared by Pairing Request and Pairing Response
    /// (Vol 3 Part H §3.5.1 and §3.5.2).
    public struct PairingParameters: Sendable, Equatable {
        public var ioCapability: IOCapability
        public var oobDataPresent: Bool
        public var authenticationRequirements: AuthenticationRequirements
        /// Octets, 7...16.
        public var maximumKeySize: UInt8
        public var initiatorKeyDistribution: KeyDistribution
        public var responderKeyDistribution: KeyDistribution

        public init(
            ioCapability: IOCapability = .noInputNoOutput, oobDataPresent: Bool = false,
            authenticationRequirements: AuthenticationRequirements, maximumKeySize: UInt8 = 16,
            initiatorKeyDistribution: KeyDistribution, responderKeyDistribution: KeyDistribution
        ) {
            self.ioCapability = ioCapability
            self.oobDataPresent = oobDataPresent
            self.authenticationRequirements = authenticationRequirements
            self.maximumKeySize = maximumKeySize
            self.initiatorKeyDistribution = initiatorKeyDistribution
            self.responderKeyDistribution = responderKeyDistribution
        }

        static let keySizes: ClosedRange<UInt8> = 7...16

        init(reading reader: inout ByteReader, code: Code) throws(PDUError) {
            let io = try reader.readSMPByte(of: code)
            guard let ioCapability = IOCapability(rawValue: io) else {
                throw .invalidValue(code, field: "IO capability", value: Int(io))
            }
            let oob = try reader.readSMPByte(of: code)
            guard oob <= 1 else { throw .invalidValue(code, field: "OOB data flag", value: Int(oob)) }
            let auth = try reader.readSMPByte(of: code)
            let keySize = try reader.readSMPByte(of: code)
            guard Self.keySizes.contains(keySize) else {
                throw .invalidValue(code, field: "maximum encryption key size", value: Int(keySize))
            }
            self.init(
                ioCapability: ioCapability, oobDataPresent: oob == 1,
                authenticationRequirements: AuthenticationRequirements(rawValue: auth), maximumKeySize: keySize,
                initiatorKeyDistribution: KeyDistribution(rawValue: try reader.readSMPByte(of: code)),
                responderKeyDistribution: KeyDistribution(rawValue: try reader.readSMPByte(of: code)))
        }

        func write(into writer: inout ByteWriter) {
            writer.write(ioCapability.rawValue)
            writer.write(UInt8(oobDataPresent ? 1 : 0))
            writer.write(authenticationRequirements.rawValue)
            writer.write(maximumKeySize)
            writer.write(initiatorKeyDistribution.rawValue)
            writer.write(responderKeyDistribution.rawValue)
        }
    }

    /// Pairing Request, code 0x01 (Vol 3 Part H §3.5.1): the initiator's capabilities.
    public struct PairingRequest: PDU {
        public static let code = Code.pairingRequest
        public var parameters: PairingParameters
        public init(_ parameters: PairingParameters) { self.parameters = parameters }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            parameters = try PairingParameters(reading: &reader, code: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { parameters.write(into: &writer) }
    }

    /// Pairing Response, code 0x02 (Vol 3 Part H §3.5.2): the responder's capabilities and the
    /// agreed key distribution (a subset of the request's).
    public struct PairingResponse: PDU {
        public static let code = Code.pairingResponse
        public var parameters: PairingParameters
        public init(_ parameters: PairingParameters) { self.parameters = parameters }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            parameters = try PairingParameters(reading: &reader, code: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { parameters.write(into: &writer) }
    }
}
