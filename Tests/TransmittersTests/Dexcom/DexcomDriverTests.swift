import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The driver on a virtual clock: every input is handed over explicitly, deadlines are
/// reached by jumping to `nextDeadline`. Message bytes come from the message types, whose
/// own vectors are in the sibling tests.
struct DexcomDriverTests {
    static let id = try! Dexcom.TransmitterID("8112AB")
    static let token: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
    static let challenge: [UInt8] = [9, 10, 11, 12, 13, 14, 15, 16]
    static let auth = DexcomProfile.authentication
    static let control = DexcomProfile.control
    static let backfill = DexcomProfile.backfill
    static let services = DiscoveredServices([DexcomProfile.cgmService: [
        DiscoveredCharacteristic(DexcomProfile.communication, properties: [.read, .notify]),
        DiscoveredCharacteristic(control, properties: [.write, .indicate]),
        DiscoveredCharacteristic(auth, properties: [.read, .write, .indicate]),
        DiscoveredCharacteristic(backfill, properties: [.read, .write, .notify]),
    ]])

    /// A driver plus the virtual clock.
    struct Harness {
        var driver: DexcomDriver
        var now = MonotonicInstant(nanoseconds: 1_000_000_000_000)

        init(hours: Int = 3, listenOnly: Bool = false, id: Dexcom.TransmitterID = DexcomDriverTests.id) {
            driver = DexcomDriver(device: DeviceID("cgm"),
                                  configuration: .init(transmitterID: id, backfillHours: hours, listenOnly: listenOnly),
                                  makeToken: { DexcomDriverTests.token })
        }

        mutating func start() -> [DriverAction] { driver.start(DexcomDriverTests.services, at: now) }
        mutating func send(_ input: DriverInput) -> [DriverAction] { driver.receive(input, at: now) }
        mutating func indicate(_ bytes: [UInt8]) -> [DriverAction] { send(.value(DexcomDriverTests.control, bytes, origin: .indication)) }
        mutating func advance(_ d: Duration) { now += d }
        /// Jumps to the next deadline and handles it.
        mutating func expire() -> [DriverAction] {
            guard let deadline = driver.nextDeadline else { return [] }
            now = deadline
            return driver.handleDeadline(at: now)
        }

        /// Runs authentication to the AuthStatusRx reply and returns the driver's answer to it.
        mutating func authenticate(bonded: Bool) -> [DriverAction] {
            let id = driver.configuration.transmitterID
            // Slot 0x01, the receiver's: a phone app keeps the other (the configuration's default).
            #expect(start() == [.emit(.connected), .write(DexcomDriverTests.auth, [0x01] + token + [0x01], withResponse: true)])
            #expect(send(.writeCompleted(DexcomDriverTests.auth)) == [.read(DexcomDriverTests.auth)])
            let reply = Dexcom.AuthChallengeRx(tokenHash: id.hash(DexcomDriverTests.token), challenge: DexcomDriverTests.challenge).bytes
            #expect(send(.value(DexcomDriverTests.auth, reply, origin: .read)) == [.write(DexcomDriverTests.auth, [0x04] + id.hash(DexcomDriverTests.challenge), withResponse: true)])
            #expect(send(.writeCompleted(DexcomDriverTests.auth)) == [.read(DexcomDriverTests.auth)])
            return send(.value(DexcomDriverTests.auth, Dexcom.AuthStatusRx(authenticated: true, bonded: bonded).bytes, origin: .read))
        }

        /// From encryption to the first Control request.
        mutating func encryptAndSubscribe() {
            let actions = send(.encrypted)
            #expect(actions.last == .subscribe(DexcomDriverTests.control, indications: true))
            #expect(send(.subscribed(DexcomDriverTests.control)) == [.write(DexcomDriverTests.control, Dexcom.ControlRequest.transmitterTime.bytes, withResponse: true)])
            #expect(send(.writeCompleted(DexcomDriverTests.control)) == [])
        }

        /// Answers time and glucose, then (unless a backfill comes next) sensor, calibration,
        /// battery and, on the first session, the version; returns every action from the
        /// glucose reply onward.
        mutating func exchange(currentTime: UInt32, sessionStart: UInt32?, glucose: Dexcom.GlucoseRx, firstSession: Bool = true) -> [DriverAction] {
            var actions = indicate(Dexcom.TransmitterTimeRx(currentTime: currentTime, sessionStartTime: sessionStart).bytes)
            #expect(actions.last == .write(DexcomDriverTests.control, Dexcom.ControlRequest.glucoseG6.bytes, withResponse: true))
            actions = indicate(glucose.bytes)
            if case .subscribe(DexcomDriverTests.backfill, _)? = actions.last { return actions }
            return actions + answerTheRest(firstSession: firstSession)
        }

        /// Answers what a session asks after the glucose and the backfill: sensor, calibration
        /// data, battery and, on the first session, the version.
        mutating func answerTheRest(firstSession: Bool) -> [DriverAction] {
            var actions = indicate(Dexcom.SensorRx(timestamp: 1, raw: .counts(unfiltered: 1000, filtered: 900)).bytes)
            actions += indicate(Dexcom.withCRC([UInt8](hex: "33002b290090012900ae00800050e9290000")))
            actions += indicate([UInt8](hex: "23 00 3c 01 2f 01 cd 02 1f 24 7b ae"))
            if firstSession {
                actions += indicate(Dexcom.VersionRx(firmware: [1, 6, 5, 25], bluetoothFirmware: [4, 0, 0, 1], hardwareRevision: 2,
                                                    otherFirmware: [0, 0, 0], asic: 0x4321).bytes)
            }
            return actions
        }
    }

    static func glucose(_ mgdl: UInt16, at time: UInt32, state: Dexcom.CalibrationState = .ok, trend: Int8 = -5) -> Dexcom.GlucoseRx {
        Dexcom.GlucoseRx(opcode: 0x4F, sequence: 1, timestamp: time, glucoseField: mgdl, calibrationState: state, trend: trend)
    }

    static func readings(_ actions: [DriverAction]) -> [Reading] {
        actions.compactMap { if case .emit(.reading(let r)) = $0 { r } else { nil } }
    }

    static func events(_ actions: [DriverAction]) -> [TransmitterEvent] {
        actions.compactMap { if case .emit(let e) = $0 { e } else { nil } }
    }

    static let disconnectTx = DriverAction.write(control, [0x09], withResponse: false)

    /// When the session said the next one is due, if it did.
    static func nextSession(_ actions: [DriverAction]) -> MonotonicInstant? {
        actions.lazy.compactMap { if case .nextSession(let at) = $0 { at } else { nil } }.first
    }

    // MARK: - Whole sessions

    @Test func bondedSessionWithoutGapEndsWithDisconnect() {
        var h = Harness(hours: 0)
        #expect(h.authenticate(bonded: true) == [.requestPairing])
        h.encryptAndSubscribe()
        h.advance(.seconds(1))
        let t0 = h.now
        let actions = h.exchange(currentTime: 10_000, sessionStart: 4_000, glucose: Self.glucose(123, at: 9_990, trend: -12))
        let readings = Self.readings(actions)
        #expect(readings.count == 1)
        #expect(readings.first?.value == .glucose(GlucoseConcentration(milligramsPerDeciliter: 123), trend: .fortyFiveDown))
        #expect(readings.first?.time == .monotonic(t0 - .seconds(10)))  // 10 s before the time reply
        #expect(readings.first?.device == DeviceID("cgm"))
        let events = Self.events(actions)
        #expect(events.contains(.info(TransmitterInfo(sensorState: "ok"))))
        #expect(events.contains(.info(TransmitterInfo(hardware: "battery A 3.16 V, B 3.03 V, 717 Ω, 31 days, 36 °C"))))
        #expect(events.contains(.info(TransmitterInfo(model: "Dexcom G6", firmware: "1.6.5.25 (Bluetooth 4.0.0.1, hardware 2)"))))
        #expect(actions.last == Self.disconnectTx)
        // The next reading is due 5 min after this one (dex 9990, t0 − 10 s); Vigil looks 30 s ahead.
        #expect(Self.nextSession(actions) == t0 - .seconds(10) + .seconds(300 - 30))
        #expect(readings.first?.sensorStamp == SensorStamp(run: "8112AB", count: 9_990))
        #expect(h.driver.lastSensor?.raw == .counts(unfiltered: 1000, filtered: 900))
        #expect(h.driver.lastCalibration?.glucoseMilligramsPerDeciliter == 128)
        #expect(h.send(.writeCompleted(Self.control)) == [])  // the transmitter drops the link itself
        #expect(h.driver.nextDeadline == h.now + .seconds(2))
        #expect(h.send(.disconnected(reason: "remote user terminated")) == [.emit(.disconnected(reason: "remote user terminated"))])
        #expect(h.driver.nextDeadline == nil)
        #expect(h.driver.firmwareKnown)
    }

    @Test func sensorAgeFromTransmitterTime() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let actions = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 7_471_687, sessionStartTime: 7_470_972).bytes)
        #expect(Self.events(actions) == [.info(TransmitterInfo(sensorAge: .seconds(715)))])
        var impossible = Harness(hours: 0)
        _ = impossible.authenticate(bonded: true)
        impossible.encryptAndSubscribe()
        let bad = Self.events(impossible.indicate(Dexcom.TransmitterTimeRx(currentTime: 100, sessionStartTime: 200).bytes))
        #expect(bad == [.malformedValue(Self.control, reason: "impossible sensor age: session start 200 after transmitter time 100")])
    }

    @Test func notBondedPathBondsThenPairs() {
        var h = Harness(hours: 0)
        let actions = h.authenticate(bonded: false)
        #expect(actions == [.emit(.needsPairing), .write(Self.auth, [0x06, 25], withResponse: true),
                            .write(Self.auth, [0x07], withResponse: true), .requestPairing])
        #expect(h.send(.writeCompleted(Self.auth)) == [])  // keep-alive and bond request need nothing
        #expect(h.send(.encrypted) == [.emit(.paired), .subscribe(Self.control, indications: true)])
        #expect(h.driver.hasBonded)
    }

    @Test func bondLostThenReBonds() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: false)
        _ = h.send(.encrypted)
        _ = h.send(.disconnected(reason: "test"))
        let actions = h.authenticate(bonded: false)
        #expect(actions.first == .emit(.pairingFailed(reason: "bond lost: the transmitter no longer knows our bond; bonding again")))
        #expect(actions.last == .requestPairing)
        let failed = h.send(.pairingFailed(reason: "LTK rejected"))
        #expect(failed == [.emit(.pairingFailed(reason: "bond lost: LTK rejected")), .disconnect(reason: "pairing failed: bond lost: LTK rejected")])
    }

    @Test func controlRefusedAfterEncryptionEndsTheSession() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        #expect(h.send(.encrypted) == [.subscribe(Self.control, indications: true)])
        let actions = h.send(.operationFailed(.subscribe(Self.control), .attError(code: 0x05)))
        #expect(actions == [.emit(.operationFailed(.subscribe(Self.control), .attError(code: 0x05))),
                            .disconnect(reason: "subscribe \(Self.control) failed: ATT error 0x05 (insufficient authentication)")])
    }

    // MARK: - Authentication failures

    @Test func transmitterIDMismatch() {
        var h = Harness()
        _ = h.start()
        _ = h.send(.writeCompleted(Self.auth))
        let wrongID = try! Dexcom.TransmitterID("8199ZZ")
        let reply = Dexcom.AuthChallengeRx(tokenHash: wrongID.hash(Self.token), challenge: Self.challenge).bytes
        let actions = h.send(.value(Self.auth, reply, origin: .indication))  // indications are accepted too
        #expect(actions == [
            .emit(.incompatible(reason: "transmitter ID mismatch: the transmitter did not answer our token with the hash for ID 8112AB")),
            .disconnect(reason: "transmitter ID mismatch"),
        ])
        #expect(h.send(.disconnected(reason: "local")) == [.emit(.disconnected(reason: "local"))])
    }

    @Test func authenticationRefused() {
        var h = Harness()
        _ = h.start()
        let reply = Dexcom.AuthChallengeRx(tokenHash: Self.id.hash(Self.token), challenge: Self.challenge).bytes
        _ = h.send(.value(Self.auth, reply, origin: .read))
        let actions = h.send(.value(Self.auth, [0x05, 0x00, 0x01], origin: .read))
        #expect(actions.last == .disconnect(reason: "authentication refused"))
        #expect(Self.events(actions).count == 1)
    }

    @Test(arguments: [
        ([UInt8](hex: "03 01 02"), "truncated challenge"),
        ([UInt8](hex: "05 01 01"), "status before the challenge"),
        ([UInt8](), "empty"),
    ])
    func malformedAuthReplyEndsSession(_ bytes: [UInt8], _ what: String) {
        var h = Harness()
        _ = h.start()
        let actions = h.send(.value(Self.auth, bytes, origin: .read))
        guard case .emit(.malformedValue(Self.auth, _))? = actions.first else {
            Issue.record("\(what): no malformedValue in \(actions)")
            return
        }
        #expect(actions.last.map { if case .disconnect = $0 { true } else { false } } == true)
    }

    // MARK: - Timeouts: every waiting step has a deadline

    @Test func timeoutWaitingForChallenge() {
        var h = Harness()
        _ = h.start()
        #expect(h.driver.nextDeadline == h.now + .seconds(10))
        let actions = h.expire()
        #expect(actions == [.emit(.operationFailed(.read(Self.auth), .other("no AuthChallengeRx (0x03) within 10 s"))),
                            .disconnect(reason: "no AuthChallengeRx (0x03) within 10 s")])
        // Still disconnecting: the host is asked again after another step timeout.
        #expect(h.expire() == [.disconnect(reason: "no AuthChallengeRx (0x03) within 10 s")])
    }

    @Test func timeoutWaitingForStatusBondAndEncryption() {
        var h = Harness()
        _ = h.start()
        let reply = Dexcom.AuthChallengeRx(tokenHash: Self.id.hash(Self.token), challenge: Self.challenge).bytes
        _ = h.send(.value(Self.auth, reply, origin: .read))
        #expect(h.expire().last == .disconnect(reason: "no AuthStatusRx (0x05) within 10 s"))

        var bond = Harness()
        _ = bond.authenticate(bonded: false)
        #expect(bond.driver.nextDeadline == bond.now + .seconds(40))
        #expect(bond.expire() == [.emit(.pairingFailed(reason: "bonding did not finish within 40 s")), .disconnect(reason: "bonding timed out")])

        var encryption = Harness()
        _ = encryption.authenticate(bonded: true)
        #expect(encryption.expire().last == .disconnect(reason: "encryption timed out"))
    }

    @Test func timeoutWaitingForControlReply() {
        var h = Harness()
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        #expect(h.expire() == [.emit(.operationFailed(.write(Self.control), .other("no reply to TransmitterTimeTx (0x24) within 10 s"))),
                               .disconnect(reason: "no reply to TransmitterTimeTx (0x24) within 10 s")])
        var s = Harness()
        _ = s.authenticate(bonded: true)
        _ = s.send(.encrypted)
        #expect(s.expire().last == .disconnect(reason: "Control subscription not confirmed within 10 s"))
    }

    // MARK: - Bad values

    @Test func badCRCGlucoseIsDiscardedAndTheSessionGoesOn() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 4_000).bytes)
        var bytes = Self.glucose(123, at: 9_990).bytes
        bytes[15] ^= 0x55
        let actions = h.indicate(bytes)
        #expect(Self.readings(actions).isEmpty)
        guard case .emit(.malformedValue(Self.control, let reason))? = actions.first else {
            Issue.record("expected malformedValue, got \(actions)")
            return
        }
        #expect(reason.contains("CRC mismatch"))
        #expect(actions.last == .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true))
    }

    // MARK: - Requests that are good to know, not needed

    /// A transmitter that never answers CalibrationDataTx (0x32) costs that answer only: the
    /// session asks the battery next and ends normally, the glucose already out.
    @Test func anUnansweredOptionalRequestCostsOnlyItsAnswer() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 4_000).bytes)
        let live = h.indicate(Self.glucose(123, at: 9_990).bytes)
        #expect(Self.readings(live).count == 1)
        #expect(live.last == .write(Self.control, Dexcom.ControlRequest.sensor.bytes, withResponse: true))
        #expect(h.indicate(Dexcom.SensorRx(timestamp: 9_990, raw: .counts(unfiltered: 1000, filtered: 900)).bytes)
            == [.write(Self.control, Dexcom.ControlRequest.calibrationData.bytes, withResponse: true)])
        let silence = h.expire()
        #expect(silence == [.emit(.operationFailed(.write(Self.control), .other("no reply to CalibrationDataTx (0x32) within 10 s; going on without it"))),
                            .write(Self.control, Dexcom.ControlRequest.battery.bytes, withResponse: true)])
        // Its late answer is still decoded, and does not move the session on.
        #expect(h.indicate(Dexcom.withCRC([UInt8](hex: "33002b290090012900ae00800050e9290000"))) == [])
        #expect(h.driver.lastCalibration?.glucoseMilligramsPerDeciliter == 128)
        var rest = h.indicate([UInt8](hex: "23 00 3c 01 2f 01 cd 02 1f 24 7b ae"))
        rest += h.indicate(Dexcom.VersionRx(firmware: [1, 6, 5, 25], bluetoothFirmware: [4, 0, 0, 1], hardwareRevision: 2,
                                           otherFirmware: [0, 0, 0], asic: 0x4321).bytes)
        #expect(rest.last == Self.disconnectTx)
        #expect(Self.nextSession(rest) != nil)
    }

    /// The glucose and the clock are what a session is for: silence there is a failure, with
    /// no pacing, so the app retries with its back-off.
    @Test func anUnansweredGlucoseRequestEndsTheSession() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        _ = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 4_000).bytes)
        let actions = h.expire()
        #expect(actions == [.emit(.operationFailed(.write(Self.control), .other("no reply to GlucoseTx G6 (0x4E) within 10 s"))),
                            .disconnect(reason: "no reply to GlucoseTx G6 (0x4E) within 10 s")])
        #expect(Self.nextSession(actions) == nil)
    }

    // MARK: - Pacing and readings read again

    /// A transmitter that stays connectable serves its current reading at every connection:
    /// it is delivered once, and the next session is paced by the reading interval, then, while
    /// nothing new comes, by a back-off that doubles up to the interval.
    @Test func aReadingReadAgainIsNotDeliveredAgainAndSessionsArePaced() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let t0 = h.now
        let first = h.exchange(currentTime: 10_000, sessionStart: 4_000, glucose: Self.glucose(123, at: 9_990))
        #expect(Self.readings(first).count == 1)
        #expect(Self.nextSession(first) == t0 + .seconds(260))  // (9990 + 300 − 30) − 10000 s from t0
        _ = h.send(.disconnected(reason: "remote"))
        var delays: [Duration] = []
        for round in 1...5 {
            h.advance(.seconds(2))
            _ = h.authenticate(bonded: true)
            h.encryptAndSubscribe()
            let again = h.exchange(currentTime: 10_000 + UInt32(2 * round), sessionStart: 4_000, glucose: Self.glucose(123, at: 9_990), firstSession: false)
            #expect(Self.readings(again).isEmpty, "round \(round): the same dex time again")
            delays.append((Self.nextSession(again) ?? h.now) - h.now)
            _ = h.send(.disconnected(reason: "remote"))
        }
        // Before the reading is due, 15 s after it is; once it is overdue with nothing new, 30 s doubling.
        #expect(delays.first == .seconds(290 + 15 - 2))
        h.advance(.seconds(300))
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let late = h.exchange(currentTime: 10_320, sessionStart: 4_000, glucose: Self.glucose(123, at: 9_990), firstSession: false)
        let stale1 = (Self.nextSession(late) ?? h.now) - h.now
        _ = h.send(.disconnected(reason: "remote"))
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let stale2 = (Self.nextSession(h.exchange(currentTime: 10_321, sessionStart: 4_000, glucose: Self.glucose(123, at: 9_990), firstSession: false)) ?? h.now) - h.now
        #expect([stale1, stale2] == [.seconds(30), .seconds(60)])
        _ = h.send(.disconnected(reason: "remote"))
        // A new reading: delivered, stamped, and the pacing starts over from it.
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let fresh = h.exchange(currentTime: 10_330, sessionStart: 4_000, glucose: Self.glucose(125, at: 10_290), firstSession: false)
        #expect(Self.readings(fresh).map(\.sensorStamp) == [SensorStamp(run: "8112AB", count: 10_290)])
        #expect((Self.nextSession(fresh) ?? h.now) - h.now == .seconds(10_290 + 300 - 30 - 10_330))
    }

    @Test func unusableStateIsInfoNotGlucose() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let actions = h.exchange(currentTime: 10_000, sessionStart: 9_000, glucose: Self.glucose(150, at: 9_990, state: .warmup))
        #expect(Self.readings(actions).isEmpty)
        #expect(Self.events(actions).contains(.info(TransmitterInfo(sensorState: "warmup"))))
    }

    @Test func futureGlucoseAndUnexpectedMessages() {
        var h = Harness(hours: 0)
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let unexpected = h.indicate(Self.glucose(100, at: 5).bytes)  // glucose while waiting for the time
        #expect(Self.events(unexpected).count == 1)
        _ = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 9_000).bytes)
        let future = h.indicate(Self.glucose(100, at: 20_000).bytes)
        #expect(Self.readings(future).isEmpty)
        #expect(Self.events(future).contains(.malformedValue(Self.control, reason: "glucose time 20000 is after the transmitter time 10000; discarded")))
    }

    // MARK: - Configuration

    // MARK: - Slots and Firefly IDs

    @Test func theSlotIsConfigurable() throws {
        var phone = Harness(hours: 0)
        phone.driver = try DexcomDriver(TransmitterConfiguration(parsing: "dexcom cgm transmitter-id=8112AB slot=phone"))
        #expect(phone.driver.configuration.slot == .phone)
        let receiver = try DexcomDriver(TransmitterConfiguration(parsing: "dexcom cgm transmitter-id=8112AB slot=receiver"))
        #expect(receiver.configuration.slot == .receiver)
        #expect(try DexcomDriver(TransmitterConfiguration(parsing: "dexcom cgm transmitter-id=8112AB")).configuration.slot == .receiver)
        let actions = phone.driver.start(Self.services, at: phone.now)
        guard case let .write(_, bytes, _)? = actions.last else {
            Issue.record("no AuthRequestTx in \(actions)")
            return
        }
        #expect(bytes.last == 0x02)  // xDrip endByteStd: the phone slot
    }

    /// Firefly G6 IDs (8G, 8H, 8J, 8L, 8R) are refused with the reason, the README's old
    /// example among them.
    @Test(arguments: ["8G1234", "8H5678", "8j90ab", "8LABCD", "8R0000"])
    func fireflyIDsAreRefusedWithTheReason(_ id: String) {
        #expect(throws: Dexcom.TransmitterIDError.fireflyUnsupported(id)) { try Dexcom.TransmitterID(id) }
        do {
            _ = try DexcomDriver(TransmitterConfiguration(parsing: "dexcom transmitter-id=\(id)"))
            Issue.record("\(id) was accepted")
        } catch {
            #expect("\(error)".contains("Firefly"))
            #expect("\(error)".contains("J-PAKE"))
        }
    }

    @Test func configuration() throws {
        let driver = try DexcomDriver(TransmitterConfiguration(parsing: "dexcom cgm transmitter-id=4abc12 backfill-hours=24 listen-only=true"))
        #expect(driver.configuration.transmitterID.rawValue == "4ABC12")
        #expect(driver.configuration.transmitterID.generation == .g5)
        #expect(driver.configuration.backfillHours == 24)
        #expect(driver.configuration.listenOnly)
        #expect(driver.device == DeviceID("cgm"))
        let defaults = try DexcomDriver(TransmitterConfiguration(parsing: "dexcom transmitter-id=8112AB"))
        #expect(defaults.configuration.backfillHours == 3)
        #expect(!defaults.configuration.listenOnly)
        #expect(try TransmitterRegistry.builtIn.makeDriver(configurationLine: "dexcom transmitter-id=8112AB").device == DeviceID("dexcom"))
        // `vigil run` hands TOML strings over unquoted (`TOML.Value.plainText`); quotes are not an ID.
        #expect(throws: TransmitterConfigurationError.self) {
            try DexcomDriver(TransmitterConfiguration(typeName: "dexcom", options: ["transmitter-id": "\"8112AB\""]))
        }
    }

    @Test(arguments: [
        "dexcom",
        "dexcom transmitter-id=123456",
        "dexcom transmitter-id=8G123",
        "dexcom transmitter-id=8112AB backfill-hours=25",
        "dexcom transmitter-id=8112AB backfill-hours=-1",
        "dexcom transmitter-id=8112AB listen-only=maybe",
        "dexcom transmitter-id=8112AB colour=blue",
        "dexcom transmitter-id=8112AB slot=both",
        "dexcom transmitter-id=8112AB calibrate-from-meter=perhaps",
        "dexcom transmitter-id=8112AB listen-only=true calibrate-from-meter=true",
    ])
    func configurationRejects(_ line: String) {
        #expect(throws: TransmitterConfigurationError.self) { try TransmitterRegistry.builtIn.makeDriver(configurationLine: line) }
    }

    @Test func g5AsksTheG5GlucoseOpcode() {
        var h = Harness(hours: 0, id: try! Dexcom.TransmitterID("4023AB"))
        _ = h.authenticate(bonded: true)
        h.encryptAndSubscribe()
        let actions = h.indicate(Dexcom.TransmitterTimeRx(currentTime: 10_000, sessionStartTime: 4_000).bytes)
        #expect(actions.last == .write(Self.control, [UInt8](hex: "30 53 36"), withResponse: true))
    }
}
