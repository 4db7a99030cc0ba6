import Bluetooth
import Crypto
import _CryptoExtras

extension SMP {
    /// The Security Manager's cryptographic toolbox (Core v5.4 Vol 3 Part H §2.2): the legacy
    /// functions e, c1, s1 and the LE Secure Connections functions f4, f5, f6, g2 over AES-CMAC
    /// (RFC 4493).
    ///
    /// **Byte order, handled here and nowhere else.** The spec writes every value MSB-first
    /// (the leftmost octet is the most significant) and concatenates with `‖` in that order;
    /// AES and CMAC libraries take the leftmost octet as the first byte. SMP PDUs carry every
    /// value LSB-first. This API takes and returns **wire order** (LSB-first) everywhere, so the
    /// state machines pass PDU fields straight through. Internally:
    /// - `aes` and `cmac` reverse the key, the input and the output: those two functions are
    ///   the only place where the order changes.
    /// - A spec concatenation `A ‖ B ‖ C` (MSB-first) is, in wire order, the wire bytes of C,
    ///   then B, then A: `wireConcatenation(A, B, C)` builds exactly that.
    public enum Crypto {
        /// The security function e (Vol 3 Part H §2.2.1): AES-128 encryption of one block.
        /// Key, block and result are 16 wire-order bytes.
        public static func e(key: [UInt8], _ block: [UInt8]) -> [UInt8] {
            aes(key: key, block)
        }

        /// The legacy confirm value function c1 (Vol 3 Part H §2.2.3):
        /// `e(k, e(k, r ⊕ p1) ⊕ p2)` with `p1 = pres ‖ preq ‖ rat′ ‖ iat′` and
        /// `p2 = padding ‖ ia ‖ ra`. `preq`/`pres` are the 7-byte Pairing Request/Response PDUs
        /// as sent (code first), which is exactly their wire order inside p1.
        public static func c1(
            k: [UInt8], r: [UInt8], preq: [UInt8], pres: [UInt8],
            initiator: DeviceAddress, responder: DeviceAddress
        ) -> [UInt8] {
            precondition(preq.count == 7 && pres.count == 7, "c1 takes the 7-byte pairing PDUs")
            let p1 = wireConcatenation(pres, preq, [addressTypeOctet(responder)], [addressTypeOctet(initiator)])
            let p2 = wireConcatenation([0, 0, 0, 0], initiator.address.wireBytes, responder.address.wireBytes)
            return aes(key: k, xor(aes(key: k, xor(r, p1)), p2))
        }

        /// The legacy key generation function s1 (Vol 3 Part H §2.2.4): `e(k, r1′ ‖ r2′)`, where
        /// r1′ and r2′ are the least significant 64 bits of r1 and r2. STK = s1(TK, Srand, Mrand).
        public static func s1(k: [UInt8], r1: [UInt8], r2: [UInt8]) -> [UInt8] {
            precondition(r1.count == 16 && r2.count == 16, "s1 takes two 128-bit values")
            // The least significant 64 bits are the first eight wire bytes.
            return aes(key: k, wireConcatenation(Array(r1[0..<8]), Array(r2[0..<8])))
        }

        /// LE Secure Connections confirm value f4 (Vol 3 Part H §2.2.6): `AES-CMAC_X(U ‖ V ‖ Z)`,
        /// U and V 256-bit public-key X coordinates, X a 128-bit nonce, Z one octet.
        public static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) -> [UInt8] {
            precondition(u.count == 32 && v.count == 32, "f4 takes two 256-bit coordinates")
            return cmac(key: x, wireConcatenation(u, v, [z]))
        }

        /// `SALT` of f5 (Vol 3 Part H §2.2.7), spec order 6C888391 AAF5A538 60370BDB 5A6083BE,
        /// stored here in wire order.
        static let f5Salt: [UInt8] = [
            0xBE, 0x83, 0x60, 0x5A, 0xDB, 0x0B, 0x37, 0x60, 0x38, 0xA5, 0xF5, 0xAA, 0x91, 0x83, 0x88, 0x6C,
        ]
        /// keyID "btle" (spec order 62 74 6C 65), in wire order.
        static let f5KeyID: [UInt8] = [0x65, 0x6C, 0x74, 0x62]

        /// LE Secure Connections key generation f5 (Vol 3 Part H §2.2.7):
        /// `T = AES-CMAC_SALT(W)`, then `AES-CMAC_T(Counter ‖ keyID ‖ N1 ‖ N2 ‖ A1 ‖ A2 ‖ Length)`
        /// with Counter 0 for MacKey and 1 for LTK, Length = 256.
        /// A1/A2 are the initiator's/responder's 56-bit addresses (type octet most significant).
        public static func f5(
            w: [UInt8], n1: [UInt8], n2: [UInt8], a1: DeviceAddress, a2: DeviceAddress
        ) -> (macKey: [UInt8], ltk: [UInt8]) {
            precondition(w.count == 32, "f5 takes the 256-bit DHKey")
            let t = f5Key(w: w)
            func derive(_ counter: UInt8) -> [UInt8] {
                cmac(key: t, wireConcatenation([counter], f5KeyID, n1, n2, address56(a1), address56(a2), [0x00, 0x01]))
            }
            return (derive(0), derive(1))
        }

        /// The intermediate key T of f5, exposed for the spec's sample data.
        public static func f5Key(w: [UInt8]) -> [UInt8] {
            cmac(key: f5Salt, w)
        }

        /// LE Secure Connections check value f6 (Vol 3 Part H §2.2.8):
        /// `AES-CMAC_W(N1 ‖ N2 ‖ R ‖ IOcap ‖ A1 ‖ A2)`. `ioCap` is the three octets
        /// AuthReq ‖ OOB flag ‖ IO capability (spec order), given here as those fields.
        public static func f6(
            w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: IOCapabilityTriple,
            a1: DeviceAddress, a2: DeviceAddress
        ) -> [UInt8] {
            cmac(key: w, wireConcatenation(n1, n2, r, ioCap.wireBytes, address56(a1), address56(a2)))
        }

        /// LE Secure Connections numeric comparison value g2 (Vol 3 Part H §2.2.9):
        /// `AES-CMAC_X(U ‖ V ‖ Y) mod 2^32`. Unused by Just Works; here for completeness.
        /// The six-digit number a person compares is `g2 % 1_000_000`.
        public static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) -> UInt32 {
            let mac = cmac(key: x, wireConcatenation(u, v, y))
            // mod 2^32 keeps the least significant 32 bits: the first four wire bytes.
            return UInt32(mac[0]) | UInt32(mac[1]) << 8 | UInt32(mac[2]) << 16 | UInt32(mac[3]) << 24
        }

        /// The random address hash function ah (Vol 3 Part H §2.2.2): `e(k, padding ‖ r) mod 2^24`.
        /// `r` (prand) and the result (hash) are 3 wire bytes.
        public static func ah(k: [UInt8], r: [UInt8]) -> [UInt8] {
            precondition(r.count == 3, "ah takes a 24-bit prand")
            // padding ‖ r: r is least significant, so it comes first in wire order.
            return Array(aes(key: k, r + [UInt8](repeating: 0, count: 13)).prefix(3))
        }

        /// Whether `address` is a resolvable private address made with `irk` (Core v5.4 Vol 6
        /// Part B §1.3.2.2–1.3.2.3): its top two bits are 01 and its low 24 bits (hash) equal
        /// ah(IRK, prand), prand being the high 24 bits.
        public static func resolves(_ address: Address, irk: [UInt8]) -> Bool {
            guard irk.count == 16, address.value >> 46 == 0b01 else { return false }
            let bytes = address.wireBytes
            return ah(k: irk, r: Array(bytes[3..<6])) == Array(bytes[0..<3])
        }

        /// AES-CMAC (RFC 4493) with key, message and result in **spec/library order**, for
        /// checking against RFC vectors. SMP code uses the wire-order functions above.
        public static func aesCMAC(key: [UInt8], message: [UInt8]) -> [UInt8] {
            precondition(key.count == 16, "AES-CMAC here is AES-128")
            do {
                var mac = try AES.CMAC(key: SymmetricKey(data: key))
                message.withUnsafeBytes { mac.update(bufferPointer: $0) }
                return mac.finalize().withUnsafeBytes { Array($0) }
            } catch {
                // Only a wrong key size makes CMAC throw, and that is checked above.
                preconditionFailure("AES-CMAC rejected a 128-bit key: \(error)")
            }
        }

        // MARK: - The byte-order boundary

        /// e in wire order: reverse key and block into spec order, encrypt, reverse back.
        static func aes(key: [UInt8], _ block: [UInt8]) -> [UInt8] {
            precondition(key.count == 16 && block.count == 16, "AES-128 takes 16-byte key and block")
            var state = Array(block.reversed())
            do {
                try AES.permute(&state, key: SymmetricKey(data: Array(key.reversed())))
            } catch {
                preconditionFailure("AES rejected a 16-byte block: \(error)")
            }
            return state.reversed()
        }

        /// AES-CMAC in wire order: the message is a wire-order concatenation (see
        /// `wireConcatenation`), so reversing it whole yields the spec's MSB-first string.
        static func cmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
            aesCMAC(key: Array(key.reversed()), message: Array(message.reversed())).reversed()
        }

        /// The wire-order bytes of the spec concatenation `parts[0] ‖ parts[1] ‖ …`, where each
        /// part is itself in wire order: the last (least significant) part comes first.
        static func wireConcatenation(_ parts: [UInt8]...) -> [UInt8] {
            parts.reversed().flatMap { $0 }
        }

        static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
            zip(a, b).map { $0 ^ $1 }
        }

        /// iat′/rat′ of c1: 0 for a public address, 1 for a random one.
        static func addressTypeOctet(_ device: DeviceAddress) -> UInt8 {
            device.type.isRandom ? 1 : 0
        }

        /// A1/A2 of f5 and f6: the address type (0 public, 1 random) as the most significant
        /// octet above the 48-bit address; wire order puts it last.
        static func address56(_ device: DeviceAddress) -> [UInt8] {
            device.address.wireBytes + [addressTypeOctet(device)]
        }
    }

    /// IOcapA/IOcapB of f6 (Vol 3 Part H §2.2.8): AuthReq ‖ OOB data flag ‖ IO capability,
    /// taken from the sender's Pairing Request or Response.
    public struct IOCapabilityTriple: Sendable, Equatable {
        public var authenticationRequirements: AuthenticationRequirements
        public var oobDataPresent: Bool
        public var ioCapability: IOCapability

        public init(authenticationRequirements: AuthenticationRequirements, oobDataPresent: Bool, ioCapability: IOCapability) {
            self.authenticationRequirements = authenticationRequirements
            self.oobDataPresent = oobDataPresent
            self.ioCapability = ioCapability
        }

        public init(_ parameters: PairingParameters) {
            self.init(
                authenticationRequirements: parameters.authenticationRequirements,
                oobDataPresent: parameters.oobDataPresent, ioCapability: parameters.ioCapability)
        }

        /// The three octets in wire order: IO capability (least significant) first.
        var wireBytes: [UInt8] {
            [ioCapability.rawValue, oobDataPresent ? 1 : 0, authenticationRequirements.rawValue]
        }
    }
}
