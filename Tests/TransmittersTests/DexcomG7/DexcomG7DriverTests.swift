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

    @Test func aFirstPairingRunsTheExchangeTheCertificatesAndTheBond() throws {
        var h = Harness()
        let (actions, key) = try h.exchangeKeys()
        // Our round 3, then the challenge with our token and the display type.
        #expect(actions.last == .write(Self.auth, DexcomG7.ChallengeTx(token: h.token, displayType: .phone).bytes, withResponse: true))
        #expect(h.challenge(key: key, status: .init(auth: 1, bond: 0))
            == [.write(Self.auth, DexcomG7.CertificateInfoTx(index: 0, length: UInt32(Self.credentials.certificates[0].count)).bytes, withResponse: true)])
        // The key is kept from the moment the sensor accepted it.
        #expect(h.driver.persistentState["session-key"] == Hex.encode(key))
        #expect(try h.certificatesAndBond() == [.emit(.needsPairing), .requestPairing])
        let first = h.encryptAndSubscribe()
        #expect(first.last == .write(Self.control, [0x4A], withResponse: true), "the serial first: it names the readings")
        #expect(h.driver.persistentState["bonded"] == "true")
        #expect(h.control(Self.serialReply).last == .write(Self.control, [0x4E], withResponse: true))
        let afterGlucose = h.control(Self.glucose(at: 3_600, mgdl: 123))
        let reading = try #require(Self.readings(afterGlucose).first)
        #expect(reading.sensorStamp == SensorStamp(run: "G7-\(0xB3_BC55_3EC0 as UInt64)", count: 3_600))
        #expect(reading.value == .glucose(GlucoseConcentration(milligramsPerDeciliter: 123), trend: .fortyFiveDown))
        #expect(reading.time == .monotonic(h.now - .seconds(5)), "measured `age` seconds before the message")
        // A first session backfills the last 3 hours (here: the whole hour since activation).
        #expect(afterGlucose.last == .write(Self.control, DexcomG7.BackfillTx(start: 0, end: 3_600).bytes, withResponse: true))
    }

    @Test func aWrongPairingCodeIsRejectedAndTheSensorNeverAnswered() throws {
        var h = Harness(code: "1234", sensorCode: "9999")
        let (_, sensorKey) = try h.exchangeKeys()
        let answer = h.authenticate(Dexcom.AuthChallengeRx(tokenHash: Dexcom.hash(h.token, key: sensorKey), challenge: [1, 2, 3, 4, 5, 6, 7, 8]).bytes)
        #expect(answer.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.hasPrefix("pairing code rejected") } else { false } }, "\(answer)")
        #expect(answer.contains { if case .disconnect = $0 { true } else { false } })
        #expect(!answer.contains { if case let .write(_, bytes, _) = $0 { bytes.first == 0x04 } else { false } }, "never answered")
        #expect(h.driver.persistentState["session-key"] == nil)
    }

    @Test func aReconnectProvesTheStoredKeyAndEncryptsWithTheBond() throws {
        var first = Harness()
        _ = try first.pair()
        _ = first.control(Self.serialReply)
        let saved = first.driver.persistentState
        let key = try #require(saved["session-key"].flatMap(Hex.decode))

        var h = Harness()
        h.driver.restore(saved)
        let actions = h.subscribe()
        #expect(actions == [.write(Self.auth, DexcomG7.ChallengeTx(token: h.token, displayType: .phone).bytes, withResponse: true)], "no key exchange")
        #expect(h.challenge(key: key, status: .init(auth: 1, bond: 1)) == [.requestPairing])
        #expect(h.encryptAndSubscribe().last == .write(Self.control, [0x4E], withResponse: true), "the serial is known")
    }

    @Test func aStaleStoredKeyIsDroppedSoTheNextSessionPairsAgain() throws {
        var h = Harness()
        h.driver.restore(["session-key": Hex.encode([UInt8](repeating: 7, count: 16)), "key-for-code": DexcomG7Driver.fingerprint(of: "1234"), "bonded": "true"])
        #expect(h.driver.sessionKey != nil)
        _ = h.subscribe()
        let otherKey = [UInt8](repeating: 9, count: 16)
        let answer = h.authenticate(Dexcom.AuthChallengeRx(tokenHash: Dexcom.hash(h.token, key: otherKey), challenge: [1, 2, 3, 4, 5, 6, 7, 8]).bytes)
        #expect(answer.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("no longer honours the stored key") } else { false } })
        #expect(h.driver.sessionKey == nil)
        _ = h.send(.disconnected(reason: "gone"))
        #expect(h.subscribe() == [.write(Self.auth, [0x0A, 0x00], withResponse: true)], "pairs again with the code")
    }

    @Test func aSensorWithoutOurKeyRefusesTheChallengeAndWeRepair() throws {
        var h = Harness()
        h.driver.restore(["session-key": Hex.encode([UInt8](repeating: 7, count: 16)), "key-for-code": DexcomG7Driver.fingerprint(of: "1234")])
        _ = h.subscribe()
        let answer = h.authenticate([0x05, 0x02, 0x03])
        #expect(answer.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("no longer has a key") } else { false } })
        #expect(h.driver.sessionKey == nil)
    }

    @Test func aKeyAgreedWithAnotherCodeIsNotRestored() {
        var h = Harness(code: "5678")
        h.driver.restore(["session-key": Hex.encode([UInt8](repeating: 7, count: 16)), "key-for-code": DexcomG7Driver.fingerprint(of: "1234"), "bonded": "true"])
        #expect(h.driver.sessionKey == nil)
        #expect(!h.driver.hasBonded)
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

    @Test func aRefusedDisplaySlotIsReportedWithItsReason() throws {
        var h = Harness()
        let (_, key) = try h.exchangeKeys()
        let actions = h.challenge(key: key, status: .init(auth: 2, bond: 2))
        #expect(actions.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("another display of this kind") } else { false } })
    }

    @Test func aGapIsBackfilledOnceAndOldReadingsAreNotDeliveredAgain() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(Self.serialReply)
        // First session: live reading at 3,600 and a backfill from the sensor's start.
        var actions = h.control(Self.glucose(at: 3_600, mgdl: 150))
        #expect(actions.last == .write(Self.control, DexcomG7.BackfillTx(start: 0, end: 3_600).bytes, withResponse: true))
        let early = DexcomG7.BackfillRecord(measuredAt: 3_000, glucoseField: 160, state: .ok, trendByte: 0xF6)
        let warm = DexcomG7.BackfillRecord(measuredAt: 1_200, glucoseField: 0xFFFF, state: .warmup, trendByte: 0x7F)
        let again = DexcomG7.BackfillRecord(measuredAt: 3_600, glucoseField: 150, state: .ok, trendByte: 0xF6)
        #expect(h.send(.value(Self.backfill, warm.bytes + early.bytes, origin: .notification)).isEmpty)
        #expect(h.send(.value(Self.backfill, again.bytes, origin: .notification)).isEmpty)
        actions = h.control([0x59, 0x00])
        #expect(Self.readings(actions).map(\.sensorStamp?.count) == [3_000], "the warm-up record and the live reading are not delivered")
        // The session length, once; then the session ends and paces the next.
        #expect(actions.last == .write(Self.control, [0x52], withResponse: true))
        actions = h.control([UInt8](hex: "5200c0d70d00540600020404ff0c00"))
        #expect(actions.contains { if case let .emit(.info(info)) = $0 { info.hardware?.contains("10.5 days") == true } else { false } })
        #expect(actions.contains { if case .nextSession = $0 { true } else { false } })
        _ = h.send(.disconnected(reason: "sensor dropped the link"))

        // Next session, 20 minutes later: the gap since 3,600 is backfilled, nothing older.
        h.now += .seconds(1_200)
        let key = try #require(h.driver.sessionKey)
        _ = h.subscribe()
        _ = h.challenge(key: key, status: .init(auth: 1, bond: 1))
        #expect(h.encryptAndSubscribe().last == .write(Self.control, [0x4E], withResponse: true))
        actions = h.control(Self.glucose(at: 4_800, mgdl: 140))
        #expect(Self.readings(actions).map(\.sensorStamp?.count) == [4_800])
        #expect(actions.last == .write(Self.control, DexcomG7.BackfillTx(start: 3_600, end: 4_800).bytes, withResponse: true))
        let records = stride(from: UInt32(3_600), through: 4_800, by: 300).map {
            DexcomG7.BackfillRecord(measuredAt: $0, glucoseField: UInt16(150 - ($0 - 3_600) / 120), state: .ok, trendByte: 0xF6)
        }
        for pair in stride(from: 0, to: records.count, by: 2) {
            _ = h.send(.value(Self.backfill, records[pair..<min(pair + 2, records.count)].flatMap(\.bytes), origin: .notification))
        }
        actions = h.control([0x59, 0x00])
        #expect(Self.readings(actions).map(\.sensorStamp?.count) == [3_900, 4_200, 4_500], "neither the last session's nor this one's live reading again")
    }

    @Test func aMalformedBackfillIsDiscardedAndAskedAgainNextSession() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(Self.serialReply)
        _ = h.control(Self.glucose(at: 3_600, mgdl: 150))
        let actions = h.send(.value(Self.backfill, [0x01, 0x02, 0x03], origin: .notification))
        #expect(actions.contains { if case let .emit(.malformedValue(uuid, _)) = $0 { uuid == Self.backfill } else { false } })
        let end = h.control([0x59, 0x00])
        #expect(end.contains { if case let .emit(.malformedValue(_, reason)) = $0 { reason.contains("backfill discarded") } else { false } })
        #expect(Self.readings(end).isEmpty)
        #expect(h.driver.unfilledGapStart == 0)
    }

    @Test func warmUpAndExpiryAreTheSensorsStateNotReadings() throws {
        var h = Harness()
        _ = try h.pair()
        _ = h.control(Self.serialReply)
        for (state, word) in [(Dexcom.CalibrationState.warmup, "warmup"), (Dexcom.CalibrationState(rawValue: 24), "expired")] {
            let actions = h.control(Self.glucose(at: 600, mgdl: 0xFFFF, state: state))
            #expect(Self.readings(actions).isEmpty)
            #expect(actions.contains { if case let .emit(.info(info)) = $0 { info.sensorState == word && info.sensorAge == .seconds(605) } else { false } },
                    "\(actions)")
            h.driver.session.enter(.awaitingReply(to: .glucose))
        }
    }

    @Test func aCalibrationIsSentOnTheSensorsClockAndItsAnswerReported() throws {
        var h = Harness { $0.calibrateFromMeter = true; $0.backfillHours = 0 }
        _ = try h.pair()
        _ = h.control(Self.serialReply)
        let takenAt = h.now - .seconds(60)
        #expect(h.send(.calibration(GlucoseConcentration(milligramsPerDeciliter: 120), takenAt: takenAt)).isEmpty)
        let actions = h.control(Self.glucose(at: 3_600, mgdl: 118, age: 0))
        #expect(actions.last == .write(Self.control, DexcomG7.CalibrateTx(milligramsPerDeciliter: 120, measuredAt: 3_540).bytes, withResponse: true))
        let answer = h.control([UInt8](hex: "34000100"))
        #expect(answer.contains { if case let .emit(.calibration(report)) = $0 { report.isAccepted } else { false } })
    }
}

extension DriverAction {
    fileprivate var isCertificateInfo: Bool {
        if case let .write(_, bytes, _) = self { bytes.first == DexcomG7.CertificateInfoTx.opcode } else { false }
    }
}
