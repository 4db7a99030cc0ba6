import Wire

// Messages on the Authentication characteristic (F8083535-…), none with a CRC
// (docs/protocols/dexcom-g7.md §Pairing, once per sensor). The bulk payloads these frame travel
// on the Certificate characteristic, unframed.

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

    /// `03 · hash(token)[8] · challenge[8]` (17 bytes): the sensor's proof that it holds our key,
    /// and its own challenge.
    public struct ChallengeRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x03
        public var tokenHash: [UInt8]
        public var challenge: [UInt8]

        public init(tokenHash: [UInt8], challenge: [UInt8]) {
            self.tokenHash = tokenHash
            self.challenge = challenge
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try DexcomG7.reader(bytes, opcode: Self.opcode, length: 17, name: "ChallengeRx")
            tokenHash = try reader.readBytes(8, "tokenHash")
            challenge = try reader.readBytes(8, "challenge")
        }

        public var bytes: [UInt8] { [Self.opcode] + tokenHash + challenge }
    }

    /// `04 · hash(challenge)[8]`: our answer to the sensor's challenge.
    public struct ChallengeAnswerTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x04
        public var answer: [UInt8]
        public init(answer: [UInt8]) { self.answer = answer }
        public var bytes: [UInt8] { [Self.opcode] + answer }
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
            var reader = try DexcomG7.reader(bytes, opcode: Self.opcode, length: 3, name: "AuthStatusRx", allowsMore: true)
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
            var reader = try DexcomG7.reader(bytes, opcode: Self.opcode, length: 2, name: "CertificateInfoRx", allowsMore: true)
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
            var reader = try DexcomG7.reader(bytes, opcode: Self.opcode, length: 18, name: "KeyChallengeRx", allowsMore: true)
            status = try reader.readUInt8("status")
            challenge = try reader.readBytes(16, "challenge")
        }
    }

    /// `06 · seconds`: keep the link up while bonding (0x1E, 30 s, as the official app sends).
    public struct KeepAliveTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x06
        public var seconds: UInt8
        public init(seconds: UInt8) { self.seconds = seconds }
        public var bytes: [UInt8] { [Self.opcode, seconds] }
    }

    /// `07`: asks the sensor to bond; LE pairing follows.
    public struct BondRequestTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x07
        public init() {}
        public var bytes: [UInt8] { [Self.opcode] }
    }

    /// Checks a message's opcode and length (exact, or at least `length` with `allowsMore`) and
    /// returns a reader after the opcode.
    static func reader(_ bytes: [UInt8], opcode: UInt8, length: Int, name: StaticString,
                       allowsMore: Bool = false) throws(WireError) -> ByteReader {
        guard let first = bytes.first else { throw .truncated(field: "\(name) opcode", needed: 1, available: 0) }
        guard first == opcode else { throw .invalidValue(field: "\(name) opcode", value: Int(first)) }
        if bytes.count < length { throw .truncated(field: "\(name)", needed: length, available: bytes.count) }
        if !allowsMore, bytes.count > length { throw .trailingBytes(what: "\(name)", count: bytes.count - length) }
        var reader = ByteReader(bytes)
        _ = try reader.readUInt8("opcode")
        return reader
    }
}
