import Wire

// Messages on the Authentication characteristic (F8083535-…), none with a CRC
// (docs/protocols/dexcom-g7.md §Pairing, once per sensor). The bulk payloads these frame travel
// on the Certificate characteristic, unframed. The messages the G7 shares with the G6 are the
// G6's types: `Dexcom.AuthChallengeRx` (03), `Dexcom.AuthChallengeTx` (04), `Dexcom.KeepAliveTx`
// (06) and `Dexcom.BondRequestTx` (07).

extension DexcomG7 {
    /// Which kind of display takes the sensor's slot: the last byte of `ChallengeTx`. A sensor
    /// keeps one slot per kind (docs/protocols/dexcom-g7.md §Family and names; G7SensorKit
    /// `G7DisplayType.swift`).
    public enum DisplayType: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case phone = 2
        case watch = 3
        case receiver = 4
        case pump = 5

        /// The configuration's word for a display type.
        public init?(name: String) {
            guard let type = Self.allCases.first(where: { $0.description == name }) else { return nil }
            self = type
        }

        public var description: String {
            switch self {
            case .phone: "phone"
            case .watch: "watch"
            case .receiver: "receiver"
            case .pump: "pump"
            }
        }
    }

    /// `0A k`: asks for the sensor's J-PAKE packet of round `k` (0, 1, 2), which it streams on
    /// Certificate (§EC J-PAKE on P-256).
    public struct KeyExchangeRoundTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x0A
        public var round: UInt8
        public init(round: UInt8) { self.round = round }
        public var bytes: [UInt8] { [Self.opcode, round] }
    }

    /// `02 · token[8] · display type` (10 bytes): our AES challenge (§AES challenge).
    public struct ChallengeTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x02
        public var token: [UInt8]
        public var displayType: DisplayType

        public init(token: [UInt8], displayType: DisplayType) {
            precondition(token.count == 8, "the challenge token is 8 bytes")
            self.token = token
            self.displayType = displayType
        }

        public var bytes: [UInt8] { [Self.opcode] + token + [displayType.rawValue] }
    }

    /// `05 · auth · bond`: the sensor's verdict (G7SensorKit `AuthChallengeRxMessage.swift`).
    /// `auth` 1 is authenticated and 2 refused, when `bond` carries the reason instead of the bond.
    public struct AuthStatusRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x05

        /// Why a sensor refused a display that proved its key.
        public enum Refusal: UInt8, Hashable, Sendable, CustomStringConvertible {
            case keyMismatch = 1
            case displaySlotTaken = 2
            case noKeyForUs = 3

            public var description: String {
                switch self {
                case .keyMismatch: "the sensor holds a different key for this display"
                case .displaySlotTaken: "another display of this kind holds the sensor's slot (a phone app on the same display type?)"
                case .noKeyForUs: "the sensor no longer has a key for this display"
                }
            }
        }

        public var auth: UInt8
        public var bond: UInt8

        public init(auth: UInt8, bond: UInt8) {
            self.auth = auth
            self.bond = bond
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 3, name: "AuthStatusRx", allowsMore: true)
            auth = try reader.readUInt8("auth")
            bond = try reader.readUInt8("bond")
        }

        public var isAuthenticated: Bool { auth == 1 }
        public var isBonded: Bool { auth == 1 && bond == 1 }
        public var isRefused: Bool { auth == 2 }
        /// The reason a refusal gave, nil for one without a known reason.
        public var refusal: Refusal? { isRefused ? Refusal(rawValue: bond) : nil }
        public var bytes: [UInt8] { [Self.opcode, auth, bond] }
    }

    /// `0B · index · length(u32)`: announces our certificate `index` (length 0 past the last one
    /// ends the exchange) (§Certificates, signature and bond).
    public struct CertificateInfoTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x0B
        public var index: UInt8
        public var length: UInt32

        public init(index: UInt8, length: UInt32) {
            self.index = index
            self.length = length
        }

        public var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.write(Self.opcode); writer.write(index); writer.write(length)
            return writer.bytes
        }
    }

    /// `0B · status · index · length(u16)`: the sensor's acknowledgement, with the length of its
    /// own certificate that it streams on Certificate. The terminator's acknowledgement may be
    /// shorter; a missing or zero length reads as none.
    public struct CertificateInfoRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x0B
        public var status: UInt8
        public var sensorCertificateLength: Int?

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 2, name: "CertificateInfoRx", allowsMore: true)
            status = try reader.readUInt8("status")
            if bytes.count >= 5 {
                _ = try reader.readUInt8("index")
                let length = Int(try reader.readUInt16("length"))
                sensorCertificateLength = length > 0 ? length : nil
            }
        }
    }

    /// `0C · nonce[16]`: starts the key challenge.
    public struct KeyChallengeTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x0C
        public var nonce: [UInt8]
        public init(nonce: [UInt8]) {
            precondition(nonce.count == 16, "the key-challenge nonce is 16 bytes")
            self.nonce = nonce
        }
        public var bytes: [UInt8] { [Self.opcode] + nonce }
    }

    /// `0C · status · challenge[16]`: the 16 bytes the sensor wants signed with the key of our
    /// leaf certificate (G7SensorKit `G7ChallengeSigner`).
    public struct KeyChallengeRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x0C
        public var status: UInt8
        public var challenge: [UInt8]

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 18, name: "KeyChallengeRx", allowsMore: true)
            status = try reader.readUInt8("status")
            challenge = try reader.readBytes(16, "challenge")
        }
    }
}
