import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// Steps 1 to 4 of a session (DexcomG7Driver+Authentication.swift): the key exchange, the AES
/// challenge, the certificates, the signature and the bond, and each way they fail.
struct DexcomG7DriverAuthenticationTests {
    typealias T = DexcomG7DriverTests
    typealias Harness = DexcomG7DriverTests.Harness

    @Test func aFirstPairingRunsTheExchangeTheCertificatesAndTheBond() throws {
        var h = Harness()
        let (actions, key) = try h.exchangeKeys()
        // Our round 3, then the challenge with our token and the display type.
        #expect(actions.last == .write(T.auth, DexcomG7.ChallengeTx(token: h.token, displayType: .phone).bytes, withResponse: true))
        #expect(h.challenge(key: key, status: .init(auth: 1, bond: 0))
            == [.write(T.auth, DexcomG7.CertificateInfoTx(index: 0, length: UInt32(T.credentials.certificates[0].count)).bytes, withResponse: true)])
        // The key is kept from the moment the sensor accepted it.
        #expect(h.driver.persistentState["session-key"] == Hex.encode(key))
        #expect(try h.certificatesAndBond() == [.emit(.needsPairing), .requestPairing])
        let first = h.encryptAndSubscribe()
        #expect(first.last == .write(T.control, [0x4A], withResponse: true), "the serial first: it names the readings")
        #expect(h.driver.persistentState["bonded"] == "true")
        #expect(h.control(T.serialReply).last == .write(T.control, [0x4E], withResponse: true))
        let afterGlucose = h.control(T.glucose(at: 3_600, mgdl: 123))
        let reading = try #require(T.readings(afterGlucose).first)
        #expect(reading.sensorStamp == SensorStamp(run: "G7-\(0xB3_BC55_3EC0 as UInt64)", count: 3_600))
        #expect(reading.value == .glucose(GlucoseConcentration(milligramsPerDeciliter: 123), trend: .fortyFiveDown))
        #expect(reading.time == .monotonic(h.now - .seconds(5)), "measured `age` seconds before the message")
        // A first session backfills the last 3 hours (here: the whole hour since activation).
        #expect(afterGlucose.last == .write(T.control, DexcomG7.BackfillTx(start: 0, end: 3_600).bytes, withResponse: true))
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
        _ = first.control(T.serialReply)
        let saved = first.driver.persistentState
        let key = try #require(saved["session-key"].flatMap(Hex.decode))

        var h = Harness()
        h.driver.restore(saved)
        let actions = h.subscribe()
        #expect(actions == [.write(T.auth, DexcomG7.ChallengeTx(token: h.token, displayType: .phone).bytes, withResponse: true)], "no key exchange")
        #expect(h.challenge(key: key, status: .init(auth: 1, bond: 1)) == [.requestPairing])
        #expect(h.encryptAndSubscribe().last == .write(T.control, [0x4E], withResponse: true), "the serial is known")
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
        #expect(h.subscribe() == [.write(T.auth, [0x0A, 0x00], withResponse: true)], "pairs again with the code")
    }

    @Test func aSensorWithoutOurKeyRefusesTheChallengeAndWeRepair() throws {
        var h = Harness()
        h.driver.restore(["session-key": Hex.encode([UInt8](repeating: 7, count: 16)), "key-for-code": DexcomG7Driver.fingerprint(of: "1234")])
        _ = h.subscribe()
        let answer = h.authenticate([0x05, 0x02, 0x03])
        #expect(answer.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("no longer has a key") } else { false } })
        #expect(h.driver.sessionKey == nil)
    }

    @Test func aRefusedDisplaySlotIsReportedWithItsReason() throws {
        var h = Harness()
        let (_, key) = try h.exchangeKeys()
        let actions = h.challenge(key: key, status: .init(auth: 2, bond: 2))
        #expect(actions.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("another display of this kind") } else { false } })
    }

    @Test func aSensorThatStreamsWithoutEndIsCutOff() throws {
        var h = Harness()
        let (_, key) = try h.exchangeKeys()
        _ = h.challenge(key: key, status: .init(auth: 1, bond: 0))
        // Bytes, and no acknowledgement saying how many: the buffer stops at its bound.
        let actions = h.stream([UInt8](repeating: 0x33, count: DexcomG7Driver.largestSensorCertificate + 20))
        #expect(actions.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("streamed more than") } else { false } })
        #expect(h.driver.certificateBuffer.count <= DexcomG7Driver.largestSensorCertificate)
        #expect(h.driver.phase != .running(.exchangingCertificate(index: 0)))
    }

    @Test func anAnnouncedCertificateBeyondTheBoundIsRefused() throws {
        var h = Harness()
        let (_, key) = try h.exchangeKeys()
        _ = h.challenge(key: key, status: .init(auth: 1, bond: 0))
        let actions = h.authenticate([0x0B, 0x00, 0x00, 0xFF, 0xFF])
        #expect(actions.contains { if case let .emit(.pairingFailed(reason)) = $0 { reason.contains("65535 bytes") } else { false } })
    }
}
