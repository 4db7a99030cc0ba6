import Bluetooth
import Wire

extension SMP {
    /// Encryption Information, code 0x06 (Core v5.4 Vol 3 Part H §3.6.2): the LTK a legacy
    /// responder distributes. 16 wire bytes.
    public struct EncryptionInformation: PDU {
        public static let code = Code.encryptionInformation
        public var longTermKey: [UInt8]
        public init(longTermKey: [UInt8]) { self.longTermKey = longTermKey }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            longTermKey = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: longTermKey.fixed(16)) }
    }

    /// Central Identification, code 0x07 (Vol 3 Part H §3.6.3; "Master Identification" before
    /// v5.3): EDIV and Rand that identify the LTK in LE Start Encryption.
    public struct CentralIdentification: PDU {
        public static let code = Code.centralIdentification
        public var ediv: UInt16
        public var rand: UInt64
        public init(ediv: UInt16, rand: UInt64) {
            self.ediv = ediv
            self.rand = rand
        }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            let bytes = try reader.readSMPField(10, of: Self.code)
            var fields = ByteReader(bytes)
            do {
                ediv = try fields.readUInt16("EDIV")
                rand = try fields.readUInt64("Rand")
            } catch {
                throw .wrongLength(Self.code, expected: Self.code.pduLength, actual: reader.bytes.count)
            }
        }
        public func writeParameters(into writer: inout ByteWriter) {
            writer.write(ediv)
            writer.write(rand)
        }
    }

    /// Identity Information, code 0x08 (Vol 3 Part H §3.6.4): the IRK. 16 wire bytes.
    public struct IdentityInformation: PDU {
        public static let code = Code.identityInformation
        public var identityResolvingKey: [UInt8]
        public init(identityResolvingKey: [UInt8]) { self.identityResolvingKey = identityResolvingKey }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            identityResolvingKey = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) {
            writer.write(contentsOf: identityResolvingKey.fixed(16))
        }
    }

    /// Identity Address Information, code 0x09 (Vol 3 Part H §3.6.5): AddrType (0 public,
    /// 1 random static) and the 6-byte identity address.
    public struct IdentityAddressInformation: PDU {
        public static let code = Code.identityAddressInformation
        public var identityAddress: DeviceAddress
        public init(identityAddress: DeviceAddress) { self.identityAddress = identityAddress }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            let raw = try reader.readSMPByte(of: Self.code)
            guard raw <= 1 else { throw .invalidValue(Self.code, field: "address type", value: Int(raw)) }
            let address = Address(wireBytes: try reader.readSMPField(6, of: Self.code))
            identityAddress = DeviceAddress(address, type: raw == 0 ? .public : .random)
        }
        public func writeParameters(into writer: inout ByteWriter) {
            writer.write(UInt8(identityAddress.type.isRandom ? 1 : 0))
            writer.write(identityAddress.address)
        }
    }

    /// Signing Information, code 0x0A (Vol 3 Part H §3.6.6): the CSRK. 16 wire bytes.
    public struct SigningInformation: PDU {
        public static let code = Code.signingInformation
        public var signatureKey: [UInt8]
        public init(signatureKey: [UInt8]) { self.signatureKey = signatureKey }
        public init(parameters reader: inout ByteReader) throws(PDUError) {
            signatureKey = try reader.readSMPField(16, of: Self.code)
        }
        public func writeParameters(into writer: inout ByteWriter) { writer.write(contentsOf: signatureKey.fixed(16)) }
    }
}
