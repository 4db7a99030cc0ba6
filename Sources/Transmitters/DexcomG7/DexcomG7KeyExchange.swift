import Crypto
import Wire

extension DexcomG7 {
    /// Our side of the EC J-PAKE exchange keyed by the sensor's pairing code
    /// (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256). A value: Sendable, Hashable. It holds
    /// private keys, so its `description` shows none of its fields.
    public struct KeyExchange: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The round-3 randomizer the sensor expects (G7SensorKit `round3Randomizer`): the sensor
        /// reproduces our round-3 commitment, so it cannot be fresh.
        static let round3Randomizer = [UInt8](
            hex: "fbc971b837e9491e45a4179ed33865c508a1e0a1d350f5af0f96370695fdc393")

        /// Our round 1 packet: X1 = x1·G and its proof (160 bytes).
        public let round1: [UInt8]
        /// Our round 2 packet: X2 = x2·G and its proof (160 bytes).
        public let round2: [UInt8]
        /// The pairing code's ASCII digits as one big-endian integer, 32 bytes.
        private let secret: [UInt8]
        private let x1: [UInt8]
        private let x2: [UInt8]

        /// Draws both key pairs and the round-1 and round-2 randomizers and computes our round 1
        /// and round 2 packets at once (the sensor drops a link idle for about 4 s).
        ///
        /// `random(32)` is called for, in this order: x1, x2, r1 (round 1's randomizer), r2
        /// (round 2's). Each draw is read as a big-endian integer and drawn again (the same
        /// quantity, before the next) while it lies outside [1, n − 2]: so every draw is uniform
        /// in that range, and a test can feed fixed bytes and expect fixed packets.
        public init(pairingCode: String, random: (Int) -> [UInt8]) throws(CryptoError) {
            let digits = Array(pairingCode.utf8)
            guard digits.count == 4, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw .invalidPairingCode
            }
            secret = [UInt8](repeating: 0, count: 28) + digits
            func draw() -> [UInt8] {
                while true {
                    let k = random(32)
                    precondition(k.count == 32, "the random source returned \(k.count) bytes, not 32")
                    if P256.isPrivateKeyInRange(k) { return k }
                }
            }
            x1 = draw()
            x2 = draw()
            let r1 = draw(), r2 = draw()
            let g = P256.generator
            round1 = try JPAKEPacket.make(
                base: g, privateKey: x1, publicKey: P256.multiplyGenerator(by: x1), randomizer: r1, party: JPAKEPacket.clientParty)
            round2 = try JPAKEPacket.make(
                base: g, privateKey: x2, publicKey: P256.multiplyGenerator(by: x2), randomizer: r2, party: JPAKEPacket.clientParty)
        }

        /// From the sensor's three 160-byte packets: our round-3 packet, the 16-byte session key,
        /// and whether the sensor's three proofs verified. That last is advisory only: real
        /// sensors' proofs are reported not to verify under this transcript format
        /// (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256), and a wrong code shows in the AES
        /// challenge instead. Throws for a packet of the wrong length or a public key off the curve.
        public func finish(sensorRound1: [UInt8], sensorRound2: [UInt8], sensorRound3: [UInt8]) throws(CryptoError)
            -> (round3: [UInt8], sessionKey: [UInt8], sensorProofsVerified: Bool)
        {
            for (round, packet) in [(1, sensorRound1), (2, sensorRound2), (3, sensorRound3)] {
                guard packet.count == JPAKEPacket.count else { throw .wrongPacketLength(round: round, count: packet.count) }
                guard P256.isOnCurve(JPAKEPacket.publicKey(packet)) else { throw .pointNotOnCurve(round: round) }
            }
            let x1Public = JPAKEPacket.publicKey(round1), x2Public = JPAKEPacket.publicKey(round2)
            let x3 = JPAKEPacket.publicKey(sensorRound1), x4 = JPAKEPacket.publicKey(sensorRound2)
            let b = JPAKEPacket.publicKey(sensorRound3)
            let g = P256.generator, party = JPAKEPacket.sensorParty

            // The sensor's round 3 is proved with base X1 + X2 + X3.
            let sensorBase3 = try P256.add(P256.add(x1Public, x2Public), x3)
            let verified = JPAKEPacket.verify(sensorRound1, base: g, party: party)
                && JPAKEPacket.verify(sensorRound2, base: g, party: party)
                && JPAKEPacket.verify(sensorRound3, base: sensorBase3, party: party)

            // Ours: A = (x2·s)·(X1 + X3 + X4), proved with the fixed randomizer.
            let x2s = try P256.multiplyScalars(x2, secret)
            let base3 = try P256.add(P256.add(x1Public, x3), x4)
            let round3 = try JPAKEPacket.make(
                base: base3, privateKey: x2s, publicKey: P256.multiply(base3, by: x2s),
                randomizer: Self.round3Randomizer, party: JPAKEPacket.clientParty)

            // K = (B − (x2·s)·X4)·x2, the subtraction as B + (−x2·s mod n)·X4.
            let minusX2s = try P256.subtractScalars([UInt8](repeating: 0, count: 32), x2s)
            let k = try P256.multiply(P256.add(b, P256.multiply(x4, by: minusX2s)), by: x2)
            let sessionKey = Array(SHA256.hash(data: Array(k[0..<32])).prefix(16))
            return (round3, sessionKey, verified)
        }

        public var description: String { "DexcomG7.KeyExchange(private keys redacted)" }
        public var debugDescription: String { description }
    }
}
