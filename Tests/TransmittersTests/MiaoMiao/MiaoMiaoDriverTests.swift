import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The MiaoMiao session on a virtual clock: time moves only when a test says so, and timeout
/// tests jump straight to `nextDeadline`.
@Suite struct MiaoMiaoDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    static let rx = NordicUART.receive
    static let tx = NordicUART.write
    static let bridge = DiscoveredServices([NordicUART.service: [
        DiscoveredCharacteristic(rx, properties: .notify),
        DiscoveredCharacteristic(tx, properties: [.write, .writeWithoutResponse]),
    ]])
    static let f0 = DriverAction.write(tx, [0xF0], withResponse: false)

    /// Started and subscribed at t0: F0 sent.
    func reading() -> MiaoMiaoDriver {
        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(Self.bridge, at: Self.t0)
        _ = driver.receive(.subscribed(Self.rx), at: Self.t0)
        return driver
    }

    /// Delivers `bytes` in 20-byte notifications 20 ms apart, from `start`; returns all actions.
    func deliver(_ bytes: [UInt8], to driver: inout MiaoMiaoDriver, from start: MonotonicInstant, size: Int = 20) -> [DriverAction] {
        var now = start
        var actions: [DriverAction] = []
        for chunk in MiaoMiaoFixtures.chunks(bytes, size: size) {
            actions += driver.receive(.value(Self.rx, chunk, origin: .notification), at: now)
            now += .milliseconds(20)
        }
        return actions
    }

    static func events(_ actions: [DriverAction]) -> [TransmitterEvent] {
        actions.compactMap { if case let .emit(event) = $0 { event } else { nil } }
    }

    static func reasons(_ actions: [DriverAction]) -> [String] {
        events(actions).compactMap { if case let .malformedValue(_, reason) = $0 { reason } else { nil } }
    }

    static func glucose(_ actions: [DriverAction]) -> [Reading] {
        events(actions).compactMap { if case let .reading(r) = $0, r.kind == .glucose { r } else { nil } }
    }

    // MARK: - Start

    @Test func startSubscribesThenSendsF0() {
        var driver = MiaoMiaoDriver(device: "mm")
        #expect(driver.nextDeadline == nil)
        #expect(driver.start(Self.bridge, at: Self.t0) == [.emit(.connected), .subscribe(Self.rx, indications: false)])
        #expect(driver.phase == .running(.awaitingSubscription))
        #expect(driver.nextDeadline == Self.t0 + .seconds(660))
        #expect(driver.receive(.subscribed(Self.rx), at: Self.t0) == [Self.f0])
        #expect(driver.phase == .running(.reading))
    }

    @Test func writeWithResponseWhenThatIsAllThereIs() {
        var discovered = Self.bridge
        discovered.services[NordicUART.service] = [DiscoveredCharacteristic(Self.rx, properties: .notify), DiscoveredCharacteristic(Self.tx, properties: .write)]
        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(discovered, at: Self.t0)
        #expect(driver.receive(.subscribed(Self.rx), at: Self.t0) == [.write(Self.tx, [0xF0], withResponse: true)])
    }

    @Test(arguments: [
        (DiscoveredServices(), "no Nordic UART receive characteristic (6E400003) in service 6E400001"),
        (DiscoveredServices([NordicUART.service: [DiscoveredCharacteristic(MiaoMiaoDriverTests.rx, properties: .read)]]), "Nordic UART receive characteristic does not notify"),
        (DiscoveredServices([NordicUART.service: [DiscoveredCharacteristic(MiaoMiaoDriverTests.rx, properties: .notify)]]), "no Nordic UART write characteristic (6E400002) in service 6E400001"),
        (DiscoveredServices([NordicUART.service: [DiscoveredCharacteristic(MiaoMiaoDriverTests.rx, properties: .notify), DiscoveredCharacteristic(MiaoMiaoDriverTests.tx, properties: .read)]]),
         "Nordic UART write characteristic is not writable"),
    ])
    func incompatiblePeer(discovered: DiscoveredServices, reason: String) {
        var driver = MiaoMiaoDriver(device: "mm")
        #expect(driver.start(discovered, at: Self.t0) == [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)])
        #expect(driver.nextDeadline == nil)
    }

    @Test func subscriptionRefusedStops() {
        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(Self.bridge, at: Self.t0)
        let actions = driver.receive(.operationFailed(.subscribe(Self.rx), .attError(code: 0x03)), at: Self.t0)
        #expect(actions == [.emit(.operationFailed(.subscribe(Self.rx), .attError(code: 0x03))),
                            .disconnect(reason: "cannot subscribe to the MiaoMiao: ATT error 0x03 (write not permitted)")])
        #expect(driver.nextDeadline == nil)
    }

    // MARK: - Packets

    @Test func packetInPiecesGivesInfoAndReadings() throws {
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0 + .seconds(1))
        let done = Self.t0 + .seconds(1) + .milliseconds(20 * 18)  // the 19th notification completes it
        let events = Self.events(actions)
        #expect(events[0] == .info(TransmitterInfo(battery: Percent(87), serialNumber: "2C5E8B0000A407E0", firmware: "0039", hardware: "0001")))
        #expect(events[1] == .info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(4993 * 60))))
        #expect(events[2] == .reading(Reading(device: "mm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 1323 / 8.5), trend: .fortyFiveUp), time: .monotonic(done),
                                              sensorStamp: SensorStamp(run: "2C5E8B0000A407E0", count: 4993))))
        #expect(Self.glucose(actions).count == 33)
        #expect(actions.count == events.count)  // no writes: nothing went wrong
        // The watchdog was fed at the packet's completion.
        #expect(driver.nextDeadline == done + .seconds(660))
        #expect(driver.sensorUID == MiaoMiaoFixtures.uid)
    }

    @Test(arguments: [1, 7, 20, 182, 363])
    func anyNotificationSize(size: Int) {
        var driver = reading()
        #expect(Self.glucose(deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0, size: size)).count == 33)
    }

    @Test func stopHalfWayIsDroppedAndF0ResentBoundedly() {
        var driver = reading()
        let half = Array(MiaoMiaoFixtures.packet().prefix(200))
        var now = Self.t0
        for retry in 1...3 {
            _ = deliver(half, to: &driver, from: now)
            let deadline = now + .milliseconds(20 * 9) + .seconds(3)
            #expect(driver.nextDeadline == deadline)
            let actions = driver.handleDeadline(at: deadline)
            #expect(actions == [.emit(.malformedValue(Self.rx, reason: "MiaoMiao packet stopped after 200 of 363 bytes (no notification for 3 s); re-sent F0 (retry \(retry) of 3)")), Self.f0])
            now = deadline + .seconds(1)
        }
        _ = deliver(half, to: &driver, from: now)
        let deadline = now + .milliseconds(20 * 9) + .seconds(3)
        #expect(driver.handleDeadline(at: deadline) == [.emit(.malformedValue(Self.rx,
            reason: "MiaoMiao packet stopped after 200 of 363 bytes (no notification for 3 s); no retries left, waiting for the MiaoMiao's next cycle"))])
        #expect(driver.retriesUsed == 3)
        // A good packet resets the budget.
        _ = deliver(MiaoMiaoFixtures.packet(), to: &driver, from: deadline + .seconds(1))
        #expect(driver.retriesUsed == 0)
    }

    @Test func corruptFRAMIsRejectedWithItsReason() {
        var fram = LibreFixtures.xDripLibre1
        fram[200] ^= 0x10
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(fram: fram), to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).isEmpty)
        let computed = LibreBlockCRC.compute(fram[24..<320])
        #expect(Self.reasons(actions) == ["Libre FRAM body CRC mismatch: stored 0x2446, computed 0x\(hex4(computed)); re-sent F0 (retry 1 of 3)"])
        #expect(actions.last == Self.f0)
        // Bridge info still came through: the packet itself was fine.
        #expect(Self.events(actions).first == .info(TransmitterInfo(battery: Percent(87), serialNumber: "2C5E8B0000A407E0", firmware: "0039", hardware: "0001")))
    }

    @Test func impossibleAgeIsRejected() {
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(fram: LibreFixtures.withAge(30000)), to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).isEmpty)
        #expect(Self.reasons(actions) == ["impossible Libre sensor age 30000 min: beyond the maximum wear time of 20824 minutes while ready; re-sent F0 (retry 1 of 3)"])
    }

    @Test func malformedPacketIsRejected() {
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(endMarker: 0x00), to: &driver, from: Self.t0)
        #expect(Self.reasons(actions) == ["MiaoMiao packet byte 362 is 0x00, expected end marker 0x29; re-sent F0 (retry 1 of 3)"])
    }

    /// A MiaoMiao 2 carrying a European Libre 2: the packet's FRAM, as the sensor stores it,
    /// is deciphered with the packet's own UID and patchInfo, then read through the Libre path.
    @Test(arguments: Libre2FRAMCipherVectors.all)
    func libre2IsDecipheredAndRead(dump: Libre2FRAMCipherVectors.Dump) {
        var driver = reading()
        let packet = MiaoMiaoFixtures.packet(fram: dump.encrypted, declaredLength: 369, patchInfo: dump.patchInfo.bytes, uid: dump.sensorUID.bytes)
        let actions = deliver(packet, to: &driver, from: Self.t0)
        #expect(Self.reasons(actions) == [])
        #expect(Self.events(actions).contains(.info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(dump.ageMinutes * 60)))))
        #expect(Self.glucose(actions).first?.sensorStamp?.count == Int64(dump.ageMinutes))
        #expect(!actions.contains(Self.f0))
        #expect(driver.nextDeadline == Self.t0 + .milliseconds(20 * 18) + .seconds(660))  // the watchdog was fed
    }

    /// Another sensor's UID deciphers to noise: a CRC failure, reported and retried.
    @Test func wrongUIDIsACRCFailure() {
        let dump = Libre2FRAMCipherVectors.example
        var driver = reading()
        let packet = MiaoMiaoFixtures.packet(fram: dump.encrypted, declaredLength: 369, patchInfo: dump.patchInfo.bytes,
                                             uid: Libre2FRAMCipherVectors.example2.sensorUID.bytes)
        let actions = deliver(packet, to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).isEmpty)
        #expect(Self.reasons(actions).count == 1)
        #expect(Self.reasons(actions).first?.hasPrefix("Libre FRAM header CRC mismatch") == true)
        #expect(Self.reasons(actions).first?.hasSuffix("re-sent F0 (retry 1 of 3)") == true)
        #expect(actions.last == Self.f0)
    }

    /// Without patchInfo (a 363-byte packet) there is no key: the FRAM is read as a Libre 1's,
    /// and a Libre 2's fails its CRCs rather than being guessed at.
    @Test func libre2WithoutPatchInfoFailsItsCRCs() {
        let dump = Libre2FRAMCipherVectors.example
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(fram: dump.encrypted, uid: dump.sensorUID.bytes), to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).isEmpty)
        #expect(Self.reasons(actions).first?.hasPrefix("Libre FRAM header CRC mismatch") == true)
    }

    @Test func libre2Gen2PatchInfoIsIncompatible() {
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(declaredLength: 369, patchInfo: [UInt8](hex: "2b 08 30 01 73 17")), to: &driver, from: Self.t0)
        let reason = "sensor is Libre 2 Gen2 (US/CA) (patchInfo 2B 08 30 01 73 17): its FRAM is encrypted in a way "
            + "Vigil does not decrypt; only Libre 1 and European Libre 2 / 2 Plus are supported"
        // Reported, with the link kept so that a sensor swap (0x32) is heard; no F0 retry, and
        // the watchdog is not fed.
        #expect(actions.last == .emit(.incompatible(reason: reason)))
        #expect(!actions.contains(Self.f0))
        #expect(Self.glucose(actions).isEmpty)
        #expect(driver.phase == .running(.reading))
        #expect(driver.nextDeadline == Self.t0 + .seconds(660))
    }

    @Test func libre1PatchInfoIsAccepted() {
        var driver = reading()
        let actions = deliver(MiaoMiaoFixtures.packet(declaredLength: 369, patchInfo: [UInt8](hex: "df 00 00 08 1a 24")), to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).count == 33)
    }

    // MARK: - Messages

    @Test func newSensorIsAcknowledgedThenF0() {
        var driver = reading()
        _ = deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0), at: Self.t0 + .seconds(1))
        #expect(driver.libre.calibration.method == .offset)
        let now = Self.t0 + .seconds(60)
        #expect(driver.receive(.value(Self.rx, [0x32], origin: .notification), at: now)
            == [.emit(.newSensorDetected), .write(Self.tx, [0xD3, 0x01], withResponse: false)])
        #expect(driver.libre.calibration == .uncalibrated)  // the new sensor's values are not the old one's
        #expect(driver.nextDeadline == now + .milliseconds(500))
        #expect(driver.handleDeadline(at: now + .milliseconds(499)) == [])
        #expect(driver.handleDeadline(at: now + .milliseconds(500)) == [Self.f0])
        #expect(driver.startReadingDue == nil)
    }

    @Test func noSensor() {
        var driver = reading()
        #expect(driver.receive(.value(Self.rx, [0x34], origin: .notification), at: Self.t0) == [.emit(.sensorNotDetected)])
    }

    @Test func intervalResponses() {
        var driver = reading()
        #expect(driver.receive(.value(Self.rx, [0xD1, 0x01], origin: .notification), at: Self.t0) == [])
        #expect(Self.reasons(driver.receive(.value(Self.rx, [0xD1, 0x00], origin: .notification), at: Self.t0)) == ["MiaoMiao reading-interval response d1 00"])
    }

    @Test func unknownMessageIsReported() {
        var driver = reading()
        #expect(Self.reasons(driver.receive(.value(Self.rx, [0x77, 0x01], origin: .notification), at: Self.t0)) == ["unknown MiaoMiao message 77 01"])
    }

    @Test func sensorSwappedWhileAwayIsANewSensor() {
        var driver = reading()
        _ = deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0)
        let other = [UInt8](hex: "01 02 03 04 05 06 07 08")
        let actions = deliver(MiaoMiaoFixtures.packet(uid: other), to: &driver, from: Self.t0 + .seconds(300))
        #expect(Self.events(actions)[1] == .newSensorDetected)
        #expect(driver.sensorUID == other)
    }

    // MARK: - Calibration and time

    @Test func calibrationChangesTheNextValues() throws {
        var driver = reading()
        let first = Self.glucose(deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0))[0]
        let readAt = Self.t0 + .milliseconds(360)
        let taken = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 180), takenAt: readAt), at: readAt + .seconds(30))
        #expect(taken.count == 1 && taken.allSatisfy { if case .emit(.calibration(let report)) = $0 { report.isAccepted } else { false } }, "\(taken)")
        let second = Self.glucose(deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0 + .seconds(60)))[0]
        guard case let .glucose(before, _) = first.value, case let .glucose(after, _) = second.value else { Issue.record("not glucose"); return }
        #expect(before.milligramsPerDeciliter == 1323 / 8.5)
        #expect(abs(after.milligramsPerDeciliter - 180) < 1e-9)  // the same raw value, now calibrated to the stick
    }

    @Test func watchdogEndsASilentLink() {
        var driver = reading()
        let deadline = Self.t0 + .seconds(660)
        #expect(driver.nextDeadline == deadline)
        let actions = driver.handleDeadline(at: deadline)
        #expect(actions == [.emit(.noData(since: Self.t0, duration: .seconds(660))), .disconnect(reason: "no Libre reading from the MiaoMiao for 660 s")])
        #expect(driver.nextDeadline == nil)
        #expect(driver.receive(.disconnected(reason: "bye"), at: deadline) == [.emit(.disconnected(reason: "bye"))])
        #expect(driver.receive(.disconnected(reason: "bye"), at: deadline) == [])
    }

    @Test func reconnectStartsAFreshSessionButKeepsCalibration() {
        var driver = reading()
        _ = deliver(MiaoMiaoFixtures.packet(), to: &driver, from: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0), at: Self.t0 + .seconds(1))
        _ = deliver(Array(MiaoMiaoFixtures.packet().prefix(100)), to: &driver, from: Self.t0 + .seconds(2))
        _ = driver.receive(.disconnected(reason: "link lost"), at: Self.t0 + .seconds(3))
        #expect(driver.nextDeadline == nil)
        #expect(driver.start(Self.bridge, at: Self.t0 + .seconds(10)) == [.emit(.connected), .subscribe(Self.rx, indications: false)])
        #expect(!driver.assembler.isAssembling)
        #expect(driver.libre.calibration.method == .offset)
    }

    @Test func registryEntry() throws {
        let driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "miaomiao mm1 no-data-timeout=15m")
        #expect(driver.device == "mm1")
        #expect(driver.profile.namePrefix == "miaomiao")
        #expect(driver.profile.service == NordicUART.service)
        #expect(throws: TransmitterConfigurationError.unknownOption("pin", type: "miaomiao")) {
            try TransmitterRegistry.builtIn.makeDriver(configurationLine: "miaomiao pin=1")
        }
    }
}
