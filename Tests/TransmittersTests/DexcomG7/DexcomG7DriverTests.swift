import Bluetooth
import Clocks
import Crypto
import Readings
import Testing
import Wire
@testable import Transmitters

/// The driver on a virtual clock against a sensor played here: its J-PAKE side is
/// `DexcomG7KeyExchangeTests.Sensor` (the protocol doc's sensor, over the P-256 primitives whose
/// own vectors are in the sibling tests), its answers are built from the message types.
struct DexcomG7DriverTests {
    static let auth = DexcomG7Profile.authentication
    static let control = DexcomG7Profile.control
    static let backfill = DexcomG7Profile.backfill
    static let certificate = DexcomG7Profile.certificate
    static let services = DiscoveredServices([DexcomG7Profile.cgmService: [
        DiscoveredCharacteristic(control, properties: [.write, .indicate]),
        DiscoveredCharacteristic(auth, properties: [.write, .indicate]),
        DiscoveredCharacteristic(backfill, properties: [.read, .write, .notify]),
        DiscoveredCharacteristic(certificate, properties: [.write, .notify]),
    ]])
    static let credentials = try! DexcomG7.Credentials(pem: Array([
        DexcomG7CredentialFixtures.intermediate, DexcomG7CredentialFixtures.leaf, DexcomG7CredentialFixtures.leafKeyPKCS8,
    ].joined(separator: "\n").utf8))
    /// The sensor's own certificate, of a length of its choosing.
    static let sensorCertificate = [UInt8](repeating: 0x5A, count: 301)
    static let serialReply = [UInt8](hex: "4a002cc069489c37000031474141c03e55bcb300")

    /// A counter-based random source: distinct, repeatable bytes.
    final class CountingRandom: @unchecked Sendable {
        var counter: UInt8 = 0
        func next(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in counter &+= 1; return counter }
        }
    }

    /// A driver, the virtual clock, and the sensor's side of the pairing.
    struct Harness {
        var driver: DexcomG7Driver
        var now = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        var sensor: DexcomG7KeyExchangeTests.Sensor
        /// What the driver wrote to Certificate since the last look, reassembled.
        var written: [UInt8] = []
        var clientRounds: [[UInt8]] = []
        var token: [UInt8] = []

        init(code: String = "1234", sensorCode: String = "1234", configure: (inout DexcomG7Driver.Configuration) -> Void = { _ in }) {
            var configuration = DexcomG7Driver.Configuration(pairingCode: code, credentials: DexcomG7DriverTests.credentials)
            configure(&configuration)
            let random = CountingRandom()
            driver = DexcomG7Driver(device: DeviceID("g7"), configuration: configuration, makeRandom: { random.next($0) })
            let scalars = DexcomG7JPAKEVectors.sensorScalars
            sensor = DexcomG7KeyExchangeTests.Sensor(code: sensorCode, x3: scalars[0], x4: scalars[1], r3: scalars[2], r4: scalars[3], r5: scalars[4])
        }

        mutating func send(_ input: DriverInput) -> [DriverAction] {
            let actions = driver.receive(input, at: now)
            collect(actions)
            return actions
        }

        mutating func start() -> [DriverAction] {
            let actions = driver.start(DexcomG7DriverTests.services, at: now)
            collect(actions)
            return actions
        }

        /// Keeps what the driver wrote to Certificate and the challenge token it sent.
        mutating func collect(_ actions: [DriverAction]) {
            for case let .write(uuid, bytes, withResponse) in actions {
                if uuid == DexcomG7DriverTests.certificate {
                    #expect(!withResponse && bytes.count <= 20, "Certificate takes 20-byte writes without response")
                    written += bytes
                } else if uuid == DexcomG7DriverTests.auth, bytes.first == DexcomG7.ChallengeTx.opcode {
                    token = Array(bytes[1..<9])
                }
            }
        }

        mutating func takeWritten() -> [UInt8] {
            defer { written = [] }
            return written
        }

        mutating func authenticate(_ bytes: [UInt8]) -> [DriverAction] { send(.value(DexcomG7DriverTests.auth, bytes, origin: .indication)) }
        mutating func control(_ bytes: [UInt8]) -> [DriverAction] { send(.value(DexcomG7DriverTests.control, bytes, origin: .indication)) }

        /// Streams bytes on Certificate in 20-byte notifications; the driver's actions.
        mutating func stream(_ bytes: [UInt8]) -> [DriverAction] {
            var actions: [DriverAction] = []
            for start in stride(from: 0, to: bytes.count, by: 20) {
                actions += send(.value(DexcomG7DriverTests.certificate, Array(bytes[start..<min(start + 20, bytes.count)]), origin: .notification))
            }
            return actions
        }

        mutating func expire() -> [DriverAction] {
            guard let deadline = driver.nextDeadline else { return [] }
            now = deadline
            return driver.handleDeadline(at: now)
        }

        /// Start and both subscriptions; the first request after them.
        mutating func subscribe() -> [DriverAction] {
            #expect(start() == [.emit(.connected), .subscribe(DexcomG7DriverTests.auth, indications: true),
                                .subscribe(DexcomG7DriverTests.certificate, indications: false)])
            #expect(send(.subscribed(DexcomG7DriverTests.auth)) == [])
            return send(.subscribed(DexcomG7DriverTests.certificate))
        }

        /// The three J-PAKE rounds; returns the driver's actions after the sensor's third packet
        /// (our round 3 and the challenge) and the session key the sensor derived.
        mutating func exchangeKeys() throws -> (actions: [DriverAction], sensorKey: [UInt8]) {
            #expect(subscribe() == [.write(DexcomG7DriverTests.auth, [0x0A, 0x00], withResponse: true)])
            var actions = stream(try sensor.round1)
            #expect(actions.last == .write(DexcomG7DriverTests.auth, [0x0A, 0x01], withResponse: true))
            clientRounds.append(takeWritten())
            actions = stream(try sensor.round2)
            #expect(actions.last == .write(DexcomG7DriverTests.auth, [0x0A, 0x02], withResponse: true))
            clientRounds.append(takeWritten())
            let round3 = try sensor.round3(clientRound1: clientRounds[0], clientRound2: clientRounds[1])
            actions = stream(round3)
            let ours = takeWritten()
            #expect(ours.count == 160)
            return (actions, try sensor.sessionKey(clientRound2: clientRounds[1], clientRound3: ours))
        }

        /// The AES challenge with `key`, the sensor answering `status`; the driver's answer.
        mutating func challenge(key: [UInt8], status: DexcomG7.AuthStatusRx) -> [DriverAction] {
            let sensorChallenge: [UInt8] = [0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28]
            let answer = authenticate(Dexcom.AuthChallengeRx(tokenHash: Dexcom.hash(token, key: key), challenge: sensorChallenge).bytes)
            #expect(answer == [.write(DexcomG7DriverTests.auth, [0x04] + Dexcom.hash(sensorChallenge, key: key), withResponse: true)])
            return authenticate(status.bytes)
        }

        /// Certificates, key challenge, keep-alive and bond request, after a fresh exchange's
        /// `05 01 00`; returns the driver's actions after the bond request's acknowledgement.
        mutating func certificatesAndBond() throws -> [DriverAction] {
            let ours = DexcomG7DriverTests.credentials.certificates
            for index in 0..<2 {
                let sensorLength = DexcomG7DriverTests.sensorCertificate.count
                var actions = authenticate([0x0B, 0x00, UInt8(index), UInt8(sensorLength & 0xFF), UInt8(sensorLength >> 8)])
                #expect(actions.isEmpty, "nothing before the sensor's certificate is in")
                actions = stream(DexcomG7DriverTests.sensorCertificate)
                #expect(takeWritten() == ours[index], "our certificate \(index), whole and in order")
                #expect(actions.last == .write(DexcomG7DriverTests.auth, DexcomG7.CertificateInfoTx(index: UInt8(index + 1), length: index == 0 ? UInt32(ours[1].count) : 0).bytes,
                                               withResponse: true))
            }
            let challengeRequest = authenticate([0x0B, 0x00, 0x02, 0x00, 0x00])
            guard case let .write(_, request, _)? = challengeRequest.last, request.first == 0x0C, request.count == 17 else {
                Issue.record("no key challenge: \(challengeRequest)")
                return []
            }
            let toSign = [UInt8](0x40..<0x50)
            #expect(authenticate([0x0C, 0x00] + toSign).isEmpty, "the sensor's own 64 bytes are still to come")
            let actions = stream([UInt8](repeating: 0x77, count: 64))
            let signature = takeWritten()
            let leaf = try P256.Signing.PublicKey(rawRepresentation: [UInt8](hex: DexcomG7CredentialFixtures.leafPublicKey))
            #expect(leaf.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: signature), for: toSign),
                    "the signature of the sensor's 16 bytes, with the leaf's key")
            #expect(actions.last == .write(DexcomG7DriverTests.auth, [0x06, 0x1E], withResponse: true))
            #expect(authenticate([0x06, 0x00]) == [.write(DexcomG7DriverTests.auth, [0x07], withResponse: true)])
            return authenticate([0x07, 0x00])
        }

        /// From encryption to the first Control request.
        mutating func encryptAndSubscribe() -> [DriverAction] {
            let actions = send(.encrypted)
            #expect(actions.suffix(2) == [.subscribe(DexcomG7DriverTests.control, indications: true),
                                          .subscribe(DexcomG7DriverTests.backfill, indications: false)])
            #expect(send(.subscribed(DexcomG7DriverTests.control)) == [])
            return send(.subscribed(DexcomG7DriverTests.backfill))
        }

        /// A first pairing all the way to the first Control request.
        mutating func pair() throws -> [DriverAction] {
            let (_, key) = try exchangeKeys()
            #expect(challenge(key: key, status: .init(auth: 1, bond: 0)).last?.isCertificateInfo == true)
            #expect(try certificatesAndBond() == [.emit(.needsPairing), .requestPairing])
            return encryptAndSubscribe()
        }
    }

    static func glucose(at time: UInt32, mgdl: UInt16, state: Dexcom.CalibrationState = .ok, age: UInt16 = 5, trend: Int8 = -10) -> [UInt8] {
        DexcomG7.GlucoseRx(messageTime: time + UInt32(age), sequence: UInt16(time / 300), age: age, glucoseField: mgdl, state: state,
                           trendByte: UInt8(bitPattern: trend)).bytes
    }

    static func readings(_ actions: [DriverAction]) -> [Reading] {
        actions.compactMap { if case let .emit(.reading(reading)) = $0 { reading } else { nil } }
    }
    @Test func aSilentSensorEndsTheStepWithItsName() throws {
        var h = Harness()
        _ = h.subscribe()
        _ = h.stream(Array(try h.sensor.round1.prefix(100)))
        let actions = h.expire()
        #expect(actions.contains { if case let .emit(.operationFailed(_, .other(text))) = $0 { text.contains("packet 1 of 3") && text.contains("100 of 160") } else { false } },
                "\(actions)")
        #expect(actions.contains { if case .disconnect = $0 { true } else { false } })
    }
}

extension DriverAction {
    fileprivate var isCertificateInfo: Bool {
        if case let .write(_, bytes, _) = self { bytes.first == DexcomG7.CertificateInfoTx.opcode } else { false }
    }
}
