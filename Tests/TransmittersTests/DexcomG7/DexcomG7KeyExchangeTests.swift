import Crypto
import Testing
import Wire
@testable import Transmitters

struct DexcomG7KeyExchangeTests {
    typealias V = DexcomG7JPAKEVectors
    typealias P256 = DexcomG7.P256
    typealias Packet = DexcomG7.JPAKEPacket

    /// A `random` that hands out `chunks` in order and records what was asked.
    final class FixedRandom {
        var chunks: [[UInt8]]
        var requests: [Int] = []
        init(_ chunks: [[UInt8]]) { self.chunks = chunks }
        func next(_ count: Int) -> [UInt8] {
            requests.append(count)
            return chunks.removeFirst()
        }
    }

    /// The sensor's side, from the protocol doc: x3, x4 and its proofs; its round 3 with base
    /// X1 + X2 + X3 and private x4·s; K = (A − (x4·s)·X2)·x4.
    struct Sensor {
        let code: String
        let x3: [UInt8], x4: [UInt8], r3: [UInt8], r4: [UInt8], r5: [UInt8]
        var secret: [UInt8] { [UInt8](repeating: 0, count: 28) + Array(code.utf8) }
        var round1: [UInt8] { get throws { try packet(base: P256.generator, x3, r3) } }
        var round2: [UInt8] { get throws { try packet(base: P256.generator, x4, r4) } }

        func packet(base: [UInt8], _ x: [UInt8], _ r: [UInt8]) throws -> [UInt8] {
            try Packet.make(base: base, privateKey: x, publicKey: P256.multiply(base, by: x), randomizer: r, party: Packet.sensorParty)
        }

        func round3(clientRound1: [UInt8], clientRound2: [UInt8]) throws -> [UInt8] {
            let base = try P256.add(P256.add(Packet.publicKey(clientRound1), Packet.publicKey(clientRound2)), P256.multiplyGenerator(by: x3))
            return try packet(base: base, P256.multiplyScalars(x4, secret), r5)
        }

        func sessionKey(clientRound2: [UInt8], clientRound3: [UInt8]) throws -> [UInt8] {
            let minusX4s = try P256.subtractScalars([UInt8](repeating: 0, count: 32), P256.multiplyScalars(x4, secret))
            let sum = try P256.add(Packet.publicKey(clientRound3), P256.multiply(Packet.publicKey(clientRound2), by: minusX4s))
            let k = try P256.multiply(sum, by: x4)
            return Array(Crypto.SHA256.hash(data: Array(k[0..<32])).prefix(16))
        }

        static func vectors(code: String = V.pairingCode) -> Sensor {
            let s = V.sensorScalars
            return Sensor(code: code, x3: s[0], x4: s[1], r3: s[2], r4: s[3], r5: s[4])
        }
    }

    @Test func reproducesTheIndependentVectors() throws {
        let random = FixedRandom(V.clientRandom)
        let exchange = try DexcomG7.KeyExchange(pairingCode: V.pairingCode, random: random.next)
        // The first chunk is n, out of [1, n − 2]: drawn again, then x1, x2, r1, r2.
        #expect(random.requests == [32, 32, 32, 32, 32])
        #expect(random.chunks.isEmpty)
        #expect(exchange.round1 == V.clientRound1)
        #expect(exchange.round2 == V.clientRound2)
        let result = try exchange.finish(sensorRound1: V.sensorRound1, sensorRound2: V.sensorRound2, sensorRound3: V.sensorRound3)
        #expect(result.round3 == V.clientRound3)
        #expect(result.sessionKey == V.sessionKey)
        #expect(Array(Crypto.SHA256.hash(data: V.sharedX).prefix(16)) == V.sessionKey)
        #expect(result.sensorProofsVerified)
        let base3 = try P256.add(
            P256.add(Packet.publicKey(V.clientRound1), Packet.publicKey(V.sensorRound1)), Packet.publicKey(V.sensorRound2))
        let c3 = try Packet.challenge(
            base: base3, commitment: Array(result.round3[64..<128]), publicKey: Array(result.round3[0..<64]),
            party: Packet.clientParty)
        #expect(c3 == V.clientRound3Challenge)
    }

    @Test func fullExchangeWithFreshRandomnessAgreesWithTheSensor() throws {
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let sensor = Sensor(code: "0427", x3: random(32), x4: random(32), r3: random(32), r4: random(32), r5: random(32))
        let exchange = try DexcomG7.KeyExchange(pairingCode: "0427", random: random)
        #expect(exchange.round1.count == 160 && exchange.round2.count == 160)
        let sensorRound3 = try sensor.round3(clientRound1: exchange.round1, clientRound2: exchange.round2)
        let result = try exchange.finish(sensorRound1: sensor.round1, sensorRound2: sensor.round2, sensorRound3: sensorRound3)
        #expect(result.round3.count == 160)
        #expect(result.sessionKey.count == 16)
        #expect(result.sensorProofsVerified)
        #expect(try result.sessionKey == sensor.sessionKey(clientRound2: exchange.round2, clientRound3: result.round3))
        // The sensor checks our round 3 the same way, with base X1 + X3 + X4.
        let base3 = try P256.add(P256.add(Packet.publicKey(exchange.round1), Packet.publicKey(sensor.round1)), Packet.publicKey(sensor.round2))
        #expect(Packet.verify(result.round3, base: base3, party: Packet.clientParty))
    }

    @Test func aWrongCodeCompletesWithADifferentKey() throws {
        let sensor = Sensor.vectors(code: "1156")
        let exchange = try DexcomG7.KeyExchange(pairingCode: V.pairingCode, random: FixedRandom(V.clientRandom).next)
        let sensorRound3 = try sensor.round3(clientRound1: exchange.round1, clientRound2: exchange.round2)
        let result = try exchange.finish(sensorRound1: sensor.round1, sensorRound2: sensor.round2, sensorRound3: sensorRound3)
        #expect(try result.sessionKey != sensor.sessionKey(clientRound2: exchange.round2, clientRound3: result.round3))
        // Nothing in J-PAKE itself shows it: the proofs still verify.
        #expect(result.sensorProofsVerified)
    }

    @Test(arguments: [1, 2, 3])
    func tamperedSensorProofsAreReportedNotThrown(round: Int) throws {
        let exchange = try DexcomG7.KeyExchange(pairingCode: V.pairingCode, random: FixedRandom(V.clientRandom).next)
        var packets = [V.sensorRound1, V.sensorRound2, V.sensorRound3]
        packets[round - 1][159] ^= 0x80  // z
        let result = try exchange.finish(sensorRound1: packets[0], sensorRound2: packets[1], sensorRound3: packets[2])
        #expect(!result.sensorProofsVerified)
        #expect(result.round3.count == 160)
    }

    @Test func wrongLengthsAndPointsOffTheCurveThrow() throws {
        let exchange = try DexcomG7.KeyExchange(pairingCode: V.pairingCode, random: FixedRandom(V.clientRandom).next)
        #expect(throws: DexcomG7.CryptoError.wrongPacketLength(round: 1, count: 159)) {
            try exchange.finish(sensorRound1: Array(V.sensorRound1.dropLast()), sensorRound2: V.sensorRound2, sensorRound3: V.sensorRound3)
        }
        #expect(throws: DexcomG7.CryptoError.wrongPacketLength(round: 3, count: 161)) {
            try exchange.finish(sensorRound1: V.sensorRound1, sensorRound2: V.sensorRound2, sensorRound3: V.sensorRound3 + [0])
        }
        for round in 1...3 {
            var packets = [V.sensorRound1, V.sensorRound2, V.sensorRound3]
            packets[round - 1][40] ^= 0x01  // X's y coordinate
            #expect(throws: DexcomG7.CryptoError.pointNotOnCurve(round: round)) {
                try exchange.finish(sensorRound1: packets[0], sensorRound2: packets[1], sensorRound3: packets[2])
            }
        }
    }

    @Test(arguments: ["", "115", "11555", "11a5", "１１５５", "-115"])
    func pairingCodesThatAreNotFourDigitsThrow(code: String) {
        #expect(throws: DexcomG7.CryptoError.invalidPairingCode) {
            try DexcomG7.KeyExchange(pairingCode: code, random: FixedRandom(V.clientRandom).next)
        }
    }

    @Test func descriptionsShowNoKeys() throws {
        let exchange = try DexcomG7.KeyExchange(pairingCode: V.pairingCode, random: FixedRandom(V.clientRandom).next)
        for text in [String(describing: exchange), String(reflecting: exchange), "\(exchange)"] {
            #expect(!text.contains("1155") && !text.contains("0x") && text.contains("redacted"))
        }
    }
}
