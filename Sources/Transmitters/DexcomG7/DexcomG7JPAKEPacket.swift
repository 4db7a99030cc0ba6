import Crypto

extension DexcomG7 {
    /// One J-PAKE round on the wire: a public key X = x·B and a Schnorr proof that its sender knows
    /// x, 160 bytes: X (x ‖ y), the commitment V = r·B (x ‖ y), and z = r − c·x mod n (32 bytes),
    /// all big-endian (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256; libkeks `Packet`,
    /// G7SensorKit `G7PCert`).
    enum JPAKEPacket {
        static let count = 160

        /// Our party identifier, ASCII "client" (G7SensorKit `ownParty`).
        static let clientParty = Array("client".utf8)
        /// The sensor's party identifier (G7SensorKit `peerParty`).
        static let sensorParty: [UInt8] = [0x37, 0x56, 0x27, 0x67, 0x56, 0x27]

        /// The packet proving knowledge of `privateKey` for `publicKey` = privateKey·`base`, with
        /// the commitment made from `randomizer`.
        static func make(
            base: [UInt8], privateKey: [UInt8], publicKey: [UInt8], randomizer: [UInt8], party: [UInt8]
        ) throws(CryptoError) -> [UInt8] {
            let commitment = try P256.multiply(base, by: randomizer)
            let c = try challenge(base: base, commitment: commitment, publicKey: publicKey, party: party)
            let z = try P256.subtractScalars(randomizer, P256.multiplyScalars(c, privateKey))
            return publicKey + commitment + z
        }

        /// The packet's public key X (its first 64 bytes).
        static func publicKey(_ packet: [UInt8]) -> [UInt8] { Array(packet[0..<64]) }

        /// Whether the proof holds: z·B + c·X = V. False for a commitment off the curve or a
        /// sum at infinity as much as for a wrong z.
        static func verify(_ packet: [UInt8], base: [UInt8], party: [UInt8]) -> Bool {
            precondition(packet.count == count, "a J-PAKE packet is 160 bytes")
            let publicKey = Array(packet[0..<64]), commitment = Array(packet[64..<128]), z = Array(packet[128..<160])
            guard P256.isOnCurve(publicKey), P256.isOnCurve(commitment) else { return false }
            do {
                let c = try challenge(base: base, commitment: commitment, publicKey: publicKey, party: party)
                return try P256.add(P256.multiply(base, by: z), P256.multiply(publicKey, by: c)) == commitment
            } catch {
                return false
            }
        }

        /// c = SHA-256(len ‖ B ‖ len ‖ V ‖ len ‖ X ‖ len ‖ party) mod n, each point as the
        /// 65-byte uncompressed 04 ‖ x ‖ y and each length a 4-byte big-endian integer.
        static func challenge(base: [UInt8], commitment: [UInt8], publicKey: [UInt8], party: [UInt8]) throws(CryptoError)
            -> [UInt8]
        {
            var transcript: [UInt8] = []
            for field in [[0x04] + base, [0x04] + commitment, [0x04] + publicKey, party] {
                let length = UInt32(field.count)
                transcript += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                transcript += field
            }
            return try P256.reduce(digest: Array(SHA256.hash(data: transcript)))
        }
    }
}
