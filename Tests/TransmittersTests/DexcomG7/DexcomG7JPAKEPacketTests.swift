import Testing
import Wire
@testable import Transmitters

/// Packets and transcript hashes against the independent Python vectors (make_jpake_vectors.py).
struct DexcomG7JPAKEPacketTests {
    typealias Packet = DexcomG7.JPAKEPacket
    typealias V = DexcomG7JPAKEVectors

    @Test func transcriptHashMatchesTheVector() throws {
        let packet = V.clientRound1
        let c = try Packet.challenge(
            base: DexcomG7.P256.generator, commitment: Array(packet[64..<128]), publicKey: Array(packet[0..<64]),
            party: Packet.clientParty)
        #expect(c == V.clientRound1Challenge)
    }

    @Test func roundOnePacketFromFixedScalars() throws {
        // x1 and r1 are the second and fourth chunks (the first is out of range, see the vectors).
        let x1 = V.clientRandom[1], r1 = V.clientRandom[3]
        let packet = try Packet.make(
            base: DexcomG7.P256.generator, privateKey: x1, publicKey: DexcomG7.P256.multiplyGenerator(by: x1),
            randomizer: r1, party: Packet.clientParty)
        #expect(packet == V.clientRound1)
    }

    @Test func theVectorsProofsVerify() throws {
        let g = DexcomG7.P256.generator
        #expect(Packet.verify(V.clientRound1, base: g, party: Packet.clientParty))
        #expect(Packet.verify(V.clientRound2, base: g, party: Packet.clientParty))
        #expect(Packet.verify(V.sensorRound1, base: g, party: Packet.sensorParty))
        #expect(Packet.verify(V.sensorRound2, base: g, party: Packet.sensorParty))
        // The same proof under the other party's identifier is another transcript.
        #expect(!Packet.verify(V.sensorRound1, base: g, party: Packet.clientParty))
    }

    @Test(arguments: [0, 63, 64, 127, 128, 159])
    func aTamperedPacketDoesNotVerify(byte: Int) {
        var packet = V.sensorRound1
        packet[byte] ^= 0x01
        #expect(!Packet.verify(packet, base: DexcomG7.P256.generator, party: Packet.sensorParty))
    }
}
