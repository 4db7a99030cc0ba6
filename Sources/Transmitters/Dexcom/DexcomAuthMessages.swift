import Wire

// Authentication-channel messages (written to and read from the Authentication characteristic
// F8083535-…). None carries a CRC (docs/protocols/dexcom-g5-g6.md §Framing and CRC,
// §Authentication). Names follow xDrip where the projects disagree
// (docs/protocols/sources-disagree.md §Dexcom): 0x03 AuthChallengeRx, 0x05 AuthStatusRx.

extension Dexcom {
    /// Which of the transmitter's two display slots to authenticate on: the last byte of
    /// AuthRequestTx (xDrip AuthRequestTxMessage `endByteStd` 0x02 / `endByteAlt` 0x01; xdrip-js
    /// README "use receiver bt channel"). A transmitter keeps one central per slot, so a
    /// display on the slot a phone app uses takes turns with the phone for every reading.
    public enum Slot: UInt8, Hashable, Sendable, CustomStringConvertible {
        /// The standard slot, where phone apps connect.
        case phone = 0x02
        /// The alternate slot, the Dexcom receiver's.
        case receiver = 0x01

        /// The configuration's word for a slot: "phone" or "receiver".
        public init?(name: String) {
            switch name {
            case "phone": self = .phone
            case "receiver": self = .receiver
            default: return nil
            }
        }

        public var description: String { self == .phone ? "phone" : "receiver" }
    }

    /// 0x01 AuthRequestTx: `01 · token[8] · slot` (10 bytes; CGMBLEKit AuthRequestTxMessage,
    /// xDrip AuthRequestTxMessage.java). The token is single-use: a fresh random one per session.
    public struct AuthRequestTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x01
        public var token: [UInt8]
        public var slot: Slot

        public init(token: [UInt8], slot: Slot = .phone) {
            precondition(token.count == 8, "the auth token is 8 bytes")
            self.token = token
            self.slot = slot
        }

        public var bytes: [UInt8] { [Self.opcode] + token + [slot.rawValue] }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 10, name: "AuthRequestTx")
            token = try reader.readBytes(8, "token")
            let slotByte = try reader.readUInt8("slot")
            guard let slot = Slot(rawValue: slotByte) else { throw .invalidValue(field: "AuthRequestTx slot", value: Int(slotByte)) }
            self.slot = slot
        }
    }

    /// 0x03 AuthChallengeRx ("AuthRequestRx" in CGMBLEKit): `03 · tokenHash[8] · challenge[8]`
    /// (17 bytes). tokenHash proves the transmitter knows our ID's key.
    public struct AuthChallengeRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x03
        public var tokenHash: [UInt8]
        public var challenge: [UInt8]

        public init(tokenHash: [UInt8], challenge: [UInt8]) {
            self.tokenHash = tokenHash
            self.challenge = challenge
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 17, name: "AuthChallengeRx")
            tokenHash = try reader.readBytes(8, "tokenHash")
            challenge = try reader.readBytes(8, "challenge")
        }

        public var bytes: [UInt8] { [Self.opcode] + tokenHash + challenge }
    }

    /// 0x04 AuthChallengeTx: `04 · hash(challenge)[8]` (9 bytes).
    public struct AuthChallengeTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x04
        public var challengeHash: [UInt8]

        public init(challengeHash: [UInt8]) {
            precondition(challengeHash.count == 8, "the challenge hash is 8 bytes")
            self.challengeHash = challengeHash
        }

        public var bytes: [UInt8] { [Self.opcode] + challengeHash }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 9, name: "AuthChallengeTx")
            challengeHash = try reader.readBytes(8, "challengeHash")
        }
    }

    /// 0x05 AuthStatusRx ("AuthChallengeRx" in CGMBLEKit): `05 · authenticated · bonded`
    /// (3 bytes); 1 means yes. Any other value is treated as no, as every source compares with 1.
    public struct AuthStatusRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x05
        public var authenticated: Bool
        public var bonded: Bool

        public init(authenticated: Bool, bonded: Bool) {
            self.authenticated = authenticated
            self.bonded = bonded
        }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 3, name: "AuthStatusRx")
            authenticated = try reader.readUInt8("authenticated") == 1
            bonded = try reader.readUInt8("bonded") == 1
        }

        public var bytes: [UInt8] { [Self.opcode, authenticated ? 1 : 0, bonded ? 1 : 0] }
    }

    /// 0x06 KeepAliveTx: `06 · seconds` (2 bytes): how long the transmitter keeps the link
    /// open while we bond. CGMBLEKit and xdrip-js send 25, xDrip and xdripswift 60
    /// (docs/protocols/sources-disagree.md §Dexcom); Vigil sends 25, enough for Just Works pairing
    /// on a local host.
    public struct KeepAliveTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x06
        public var seconds: UInt8

        public init(seconds: UInt8 = 25) { self.seconds = seconds }

        public var bytes: [UInt8] { [Self.opcode, seconds] }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 2, name: "KeepAliveTx")
            seconds = try reader.readUInt8("seconds")
        }
    }

    /// 0x07 BondRequestTx: the single byte `07`; the LE pairing follows
    /// (docs/protocols/dexcom-g5-g6.md §Authentication).
    public struct BondRequestTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x07
        public init() {}
        public var bytes: [UInt8] { [Self.opcode] }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            _ = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 1, name: "BondRequestTx")
        }
    }

    /// 0x08 BondRequestRx: `08 · succeeded` (xdrip-js BondRequestRxMessage; xdripswift
    /// `pairRequestRx`, "comes in after having accepted the bluetooth pairing request").
    public struct BondRequestRx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x08
        public var succeeded: Bool

        public init(succeeded: Bool) { self.succeeded = succeeded }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            var reader = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 2, name: "BondRequestRx")
            succeeded = try reader.readUInt8("succeeded") == 1
        }

        public var bytes: [UInt8] { [Self.opcode, succeeded ? 1 : 0] }
    }

    /// 0x09 DisconnectTx: the single byte `09`, written to Control, no CRC (CGMBLEKit
    /// DisconnectTxMessage; xDrip DisconnectTxMessage.java). The transmitter drops the link and
    /// keeps its 5-minute cycle.
    public struct DisconnectTx: Hashable, Sendable {
        public static let opcode: UInt8 = 0x09
        public init() {}
        public var bytes: [UInt8] { [Self.opcode] }

        public init(decoding bytes: [UInt8]) throws(WireError) {
            _ = try Dexcom.authReader(bytes, opcode: Self.opcode, length: 1, name: "DisconnectTx")
        }
    }
}
