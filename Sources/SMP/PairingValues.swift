import Wire

extension SMP {
    /// Pairing Confirm, code 0x03 (Core v5.4 Vol 3 Part H §3.5.3): Mconfirm/Sconfirm (legacy,
    /// c1) or Ca/Cb (Secure Connections, f4). 16 wire-order bytes.
    public struct PairingConfirm: PDU {
        public static let code = Code.pairingConfirm
        public var value: [UInt8]
        public init(_ value: [UInt8]) { self.value = value }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            value = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value.fixed(16)) }
    }

    /// Pairing Random, code 0x04 (Vol 3 Part H §3.5.4): Mrand/Srand or Na/Nb. 16 wire bytes.
    public struct PairingRandom: PDU {
        public static let code = Code.pairingRandom
        public var value: [UInt8]
        public init(_ value: [UInt8]) { self.value = value }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            value = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value.fixed(16)) }
    }

    /// Pairing Public Key, code 0x0C (Vol 3 Part H §3.5.6): a P-256 public key as X then Y,
    /// each 32 bytes least-significant first.
    public struct PairingPublicKey: PDU {
        public static let code = Code.pairingPublicKey
        public var x: [UInt8]
        public var y: [UInt8]
        public init(x: [UInt8], y: [UInt8]) {
            self.x = x
            self.y = y
        }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            x = try reader.readSMPField(32, of: Self.code)
            y = try reader.readSMPField(32, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) {
            writer.write(contentsOf: x.fixed(32))
            writer.write(contentsOf: y.fixed(32))
        }
    }

    /// Pairing DHKey Check, code 0x0D (Vol 3 Part H §3.5.7): Ea/Eb from f6. 16 wire bytes.
    public struct PairingDHKeyCheck: PDU {
        public static let code = Code.pairingDHKeyCheck
        public var value: [UInt8]
        public init(_ value: [UInt8]) { self.value = value }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            value = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: value.fixed(16)) }
    }

    /// Security Request, code 0x0B (Vol 3 Part H §3.6.7): a peripheral asks the central to
    /// pair or to encrypt with an existing bond.
    public struct SecurityRequest: PDU {
        public static let code = Code.securityRequest
        public var authenticationRequirements: AuthenticationRequirements
        public init(_ authenticationRequirements: AuthenticationRequirements) {
            self.authenticationRequirements = authenticationRequirements
        }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            authenticationRequirements = AuthenticationRequirements(rawValue: try reader.readSMPByte(of: Self.code))
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(authenticationRequirements.rawValue) }
    }

    /// Keypress Notification, code 0x0E (Vol 3 Part H §3.5.8): passkey-entry progress. Vigil
    /// never uses passkey entry; the type exists so the PDU decodes and is refused cleanly.
    public struct KeypressNotification: PDU {
        public static let code = Code.keypressNotification
        public var type: Kind
        public init(_ type: Kind) { self.type = type }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            let raw = try reader.readSMPByte(of: Self.code)
            guard let kind = Kind(rawValue: raw) else {
                throw .invalidValue(Self.code, field: "notification type", value: Int(raw))
            }
            type = kind
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(type.rawValue) }

        /// Notification Type (Vol 3 Part H §3.5.8, Table 3.8).
        public enum Kind: UInt8, Sendable, CaseIterable {
            case passkeyEntryStarted = 0
            case passkeyDigitEntered = 1
            case passkeyDigitErased = 2
            case passkeyCleared = 3
            case passkeyEntryCompleted = 4
        }
    }
}

extension Array where Element == UInt8 {
    /// Exactly `count` bytes: truncated or zero-padded. Encoders use it so a wrongly sized
    /// value built in code can never produce a PDU of the wrong length.
    func fixed(_ count: Int) -> [UInt8] {
        self.count == count ? self : Array(prefix(count)) + [UInt8](repeating: 0, count: Swift.max(0, count - self.count))
    }
}
