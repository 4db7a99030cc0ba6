import Crypto
import _CryptoExtras

extension Dexcom {
    /// A 6-character transmitter ID as printed on the transmitter, e.g. `81H0AB`
    /// (docs/protocols/dexcom-g5-g6.md §Discovery and identity): `4…` is a G5, `8…` a G6 (xdrip-js
    /// lib/transmitter.js).
    ///
    /// The ID is also the authentication secret: the AES-128 key is the ASCII of
    /// `"00" + ID + "00" + ID` (CGMBLEKit Transmitter.swift `cryptKey`;
    /// docs/protocols/dexcom-g5-g6.md §Authentication).
    public struct TransmitterID: Hashable, Sendable, CustomStringConvertible {
        public enum Generation: String, Hashable, Sendable {
            case g5 = "G5"
            case g6 = "G6"
        }

        public let rawValue: String
        public let generation: Generation

        /// Accepts six ASCII letters or digits starting with 4 or 8. Lower-case letters are
        /// upper-cased: IDs are printed in capitals and the key is derived from the printed form.
        public init(_ text: String) throws(TransmitterIDError) {
            let upper = text.uppercased()
            guard upper.count == 6 else { throw .wrongLength(text) }
            guard upper.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else {
                throw .invalidCharacters(text)
            }
            switch upper.utf8.first {
            case UInt8(ascii: "4"): generation = .g5
            case UInt8(ascii: "8"): generation = .g6
            default: throw .unknownGeneration(text)
            }
            if Self.fireflyPrefixes.contains(String(upper.prefix(2))) { throw .fireflyUnsupported(text) }
            rawValue = upper
        }

        /// G6 IDs starting 8G, 8H, 8J, 8L or 8R are "Firefly" ("G6+") transmitters (xdrip-js
        /// lib/transmitter.js; xdripswift CGMG5Transmitter `scaleRawValue`), whose later
        /// firmware authenticates with an EC J-PAKE exchange instead of the AES challenge
        /// this driver speaks (docs/dexcom.md "Which transmitters"). Accepting one would only
        /// fail at the first connection, as "Unable to parse auth challenge" did for users of
        /// CGMBLEKit and xdrip-js, so the configuration refuses it.
        public static let fireflyPrefixes: Set<String> = ["8G", "8H", "8J", "8L", "8R"]

        /// The advertised local name: "Dexcom" and the ID's last two characters
        /// (CGMBLEKit Transmitter.swift `shouldConnectPeripheral`, suffix(2)).
        public var advertisedName: String { "Dexcom" + rawValue.suffix(2) }

        /// The 16-byte AES-128 key (docs/protocols/dexcom-g5-g6.md §Authentication).
        public var cryptKey: [UInt8] { Dexcom.cryptKey(forID: rawValue) }

        /// The Dexcom hash under this ID's key; see `Dexcom.hash(_:key:)`.
        public func hash(_ eight: [UInt8]) -> [UInt8] { Dexcom.hash(eight, key: cryptKey) }

        public var description: String { rawValue }
    }

    /// key = ASCII of `"00" + ID + "00" + ID` (CGMBLEKit `TransmitterID.cryptKey`; xDrip
    /// `getCryptKey`). Takes any text so the published vector for ID "123456" (which is not a
    /// valid G5/G6 ID) can be checked.
    public static func cryptKey(forID id: String) -> [UInt8] { Array(("00" + id + "00" + id).utf8) }

    /// hash(x) = the first 8 bytes of AES-128-ECB(key, x ‖ x) (CGMBLEKit `computeHash`;
    /// xDrip `calculateChallengeHash`; docs/protocols/dexcom-g5-g6.md §Authentication). It checks
    /// the transmitter's answer to our token and answers its challenge.
    public static func hash(_ eight: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(eight.count == 8 && key.count == 16, "the Dexcom hash takes 8 bytes and a 16-byte key")
        var block = eight + eight
        do {
            try AES.permute(&block, key: SymmetricKey(data: key))
        } catch {
            // Only a key or block of the wrong size makes AES throw; both are checked above.
            preconditionFailure("AES rejected a 16-byte key and block: \(error)")
        }
        return Array(block[0..<8])
    }

    public enum TransmitterIDError: Error, Hashable, Sendable, CustomStringConvertible {
        case wrongLength(String)
        case invalidCharacters(String)
        case unknownGeneration(String)
        case fireflyUnsupported(String)

        public var description: String {
            switch self {
            case let .wrongLength(text): "transmitter ID \"\(text)\" must have exactly 6 characters"
            case let .invalidCharacters(text): "transmitter ID \"\(text)\" may hold only letters and digits"
            case let .unknownGeneration(text): "transmitter ID \"\(text)\" starts with neither 4 (G5) nor 8 (G6)"
            case let .fireflyUnsupported(text):
                "transmitter ID \"\(text)\" is a Firefly G6 (IDs starting 8G, 8H, 8J, 8L or 8R), which pairs with an EC J-PAKE exchange: Vigil speaks it for the G7 family only (type dexcom-g7), and no source it follows says a Firefly G6 pairs the same way"
            }
        }
    }
}
