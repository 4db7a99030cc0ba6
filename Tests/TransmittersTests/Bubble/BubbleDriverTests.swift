import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The Bubble session on a virtual clock.
@Suite struct BubbleDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 2_000_000_000_000)
    static let rx = NordicUART.receive
    static let tx = NordicUART.write
    static let bridge = DiscoveredServices([NordicUART.service: [
        DiscoveredCharacteristic(rx, properties: .notify),
        DiscoveredCharacteristic(tx, properties: .writeWithoutResponse),
    ]])
    static let requestData = DriverAction.write(tx, [0x02, 0x01, 0x00, 0x00, 0x00, 0x2B], withResponse: false)
    static let info = [UInt8](hex: "80 04 02 06 57 00 00 01 04")
    static let uid = [UInt8](hex: "2c 5e 8b 00 00 a4 07 e0")
    static let serial = [0xC0, 0x08] + uid
    static let patchLibre1 = [UInt8](hex: "c1 00 00 00 00 df 00 00 08 1a 24")

    /// The FRAM in 0x82 chunks (0x88 when the Bubble deciphered it) of 16 payload bytes; the
    /// last one padded to 16 (xDrip's footer).
    static func dataChunks(_ fram: [UInt8] = LibreFixtures.xDripLibre1, code: UInt8 = 0x82) -> [[UInt8]] {
        let padded = fram + [UInt8](repeating: 0, count: 8)
        return stride(from: 0, to: padded.count, by: 16).enumerated().map { index, start in
            [code, UInt8(index), 0x00, 0x00] + padded[start ..< min(start + 16, padded.count)]
        }
    }

    /// The `0xC0` and `0xC1` (firmware 1.35 or later) messages of a sensor.
    static func sensorMessages(uid: [UInt8], patchInfo: [UInt8]) -> [[UInt8]] {
        [[0xC0, 0x08] + uid, [0xC1, 0x00, 0x00, 0x00, 0x00] + patchInfo]
    }

    func reading() -> BubbleDriver {
        var driver = BubbleDriver(device: "bb")
        _ = driver.start(Self.bridge, at: Self.t0)
        _ = driver.receive(.subscribed(Self.rx), at: Self.t0)
        return driver
    }

    func deliver(_ messages: [[UInt8]], to driver: inout BubbleDriver, from start: MonotonicInstant) -> [DriverAction] {
        var now = start
        var actions: [DriverAction] = []
        for message in messages {
            actions += driver.receive(.value(Self.rx, message, origin: .notification), at: now)
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

    @Test func startThenInfoThenRequestData() {
        var driver = BubbleDriver(device: "bb")
        #expect(driver.start(Self.bridge, at: Self.t0) == [.emit(.connected), .subscribe(Self.rx, indications: false)])
        #expect(driver.receive(.subscribed(Self.rx), at: Self.t0) == [.write(Self.tx, [0x00, 0x01, 0x05], withResponse: false)])
        #expect(driver.receive(.value(Self.rx, Self.info, origin: .notification), at: Self.t0)
            == [.emit(.info(TransmitterInfo(battery: Percent(87), firmware: "2.6", hardware: "1.4"))), Self.requestData])
        #expect(driver.firmware == Bubble.Version(major: 2, minor: 6))
    }

    @Test func wholeCycleGivesReadings() {
        var driver = reading()
        _ = deliver([Self.info], to: &driver, from: Self.t0)
        let actions = deliver([Self.serial, Self.patchLibre1] + Self.dataChunks(), to: &driver, from: Self.t0 + .seconds(1))
        let events = Self.events(actions)
        #expect(events[0] == .info(TransmitterInfo(serialNumber: "2C5E8B0000A407E0")))
        #expect(events[1] == .info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(4993 * 60))))
        let done = Self.t0 + .seconds(1) + .milliseconds(20 * 23)  // serial, patchInfo, then 22 chunks
        #expect(events[2] == .reading(Reading(device: "bb", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 1323 / 8.5), trend: .fortyFiveUp), time: .monotonic(done),
                                              sensorStamp: SensorStamp(run: "2C5E8B0000A407E0", count: 4993))))
        #expect(Self.glucose(actions).count == 33)
        #expect(driver.fram.isEmpty)
        #expect(driver.nextDeadline == done + .seconds(660))
    }

    /// 22 chunks of 16: the footer shares the last chunk. Here it comes alone after 21.5 chunks
    /// of FRAM (chunks of 8): the lone footer chunk is padding, not the start of a read.
    @Test func footerInAChunkOfItsOwnIsPadding() {
        var driver = reading()
        let padded = LibreFixtures.xDripLibre1 + [UInt8](repeating: 0, count: 8)
        let chunks = stride(from: 0, to: padded.count, by: 8).map { [0x82, 0x00, 0x00, 0x00] + padded[$0 ..< $0 + 8] }
        let actions = deliver(chunks, to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).count == 33)
        #expect(driver.fram.isEmpty)
        #expect(driver.nextDeadline == Self.t0 + .milliseconds(20 * 42) + .seconds(660))  // only the watchdog
        // The next cycle, minutes later, is read normally.
        let next = deliver(Self.dataChunks(), to: &driver, from: Self.t0 + .seconds(300))
        #expect(Self.glucose(next).count == 1)
    }

    @Test func stopHalfWayIsDroppedAndReRequestedBoundedly() {
        var driver = reading()
        var now = Self.t0
        for retry in 1...3 {
            _ = deliver(Array(Self.dataChunks().prefix(10)), to: &driver, from: now)
            let deadline = now + .milliseconds(20 * 9) + .seconds(3)
            #expect(driver.nextDeadline == deadline)
            #expect(driver.handleDeadline(at: deadline) == [.emit(.malformedValue(Self.rx,
                reason: "Bubble data stopped after 160 of 344 FRAM bytes (no chunk for 3 s); re-requested data (retry \(retry) of 3)")), Self.requestData])
            now = deadline + .seconds(1)
        }
        _ = deliver(Array(Self.dataChunks().prefix(10)), to: &driver, from: now)
        #expect(Self.reasons(driver.handleDeadline(at: now + .seconds(4))).first?.hasSuffix("no retries left, waiting for the Bubble's next cycle") == true)
        _ = deliver(Self.dataChunks(), to: &driver, from: now + .seconds(10))
        #expect(driver.retriesUsed == 0)
    }

    @Test func corruptFRAMIsRejected() {
        var fram = LibreFixtures.xDripLibre1
        fram[2] ^= 0xFF
        var driver = reading()
        let actions = deliver(Self.dataChunks(fram), to: &driver, from: Self.t0)
        #expect(Self.glucose(actions).isEmpty)
        #expect(Self.reasons(actions).first?.hasPrefix("Libre FRAM header CRC mismatch: stored 0x9945") == true)
        #expect(actions.last == Self.requestData)
    }

    /// A European Libre 2 on the bridge: the FRAM comes as the sensor stores it, and is read
    /// through the Libre path once deciphered with the UID and patchInfo of the same cycle.
    @Test(arguments: Libre2FRAMCipherVectors.all)
    func libre2IsDecipheredAndRead(dump: Libre2FRAMCipherVectors.Dump) {
        var driver = reading()
        _ = deliver([Self.info], to: &driver, from: Self.t0)
        let messages = Self.sensorMessages(uid: dump.sensorUID.bytes, patchInfo: dump.patchInfo.bytes) + Self.dataChunks(dump.encrypted)
        let actions = deliver(messages, to: &driver, from: Self.t0 + .seconds(1))
        #expect(Self.reasons(actions) == [])
        #expect(Self.events(actions).contains(.info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(dump.ageMinutes * 60)))))
        #expect(Self.glucose(actions).first?.sensorStamp?.count == Int64(dump.ageMinutes))
        #expect(!actions.contains(Self.requestData))
        #expect(driver.patchInfo == dump.patchInfo)
        #expect(driver.nextDeadline == Self.t0 + .seconds(1) + .milliseconds(20 * 23) + .seconds(660))  // the watchdog was fed
    }

    /// A Bubble on firmware 2.6 or later may send the FRAM already deciphered, in 0x88 chunks:
    /// read as it is, not deciphered a second time.
    @Test func decipheredChunksAreReadAsPlain() {
        let dump = Libre2FRAMCipherVectors.example
        var driver = reading()
        _ = deliver([Self.info], to: &driver, from: Self.t0)
        let messages = Self.sensorMessages(uid: dump.sensorUID.bytes, patchInfo: dump.patchInfo.bytes) + Self.dataChunks(dump.plain, code: 0x88)
        let actions = deliver(messages, to: &driver, from: Self.t0 + .seconds(1))
        #expect(Self.reasons(actions) == [])
        #expect(Self.events(actions).contains(.info(TransmitterInfo(sensorState: "ready", sensorAge: .seconds(dump.ageMinutes * 60)))))
    }

    @Test func mixedChunkKindsAreRejected() {
        let dump = Libre2FRAMCipherVectors.example
        var driver = reading()
        let chunks = Array(Self.dataChunks(dump.encrypted).prefix(2)) + Array(Self.dataChunks(dump.plain, code: 0x88).suffix(20))
        let actions = deliver(Self.sensorMessages(uid: dump.sensorUID.bytes, patchInfo: dump.patchInfo.bytes) + chunks, to: &driver, from: Self.t0)
        #expect(Self.reasons(actions).first == "Bubble mixed deciphered (0x88) and stored (0x82) chunks in one FRAM; re-requested data (retry 1 of 3)")
        #expect(Self.glucose(actions).isEmpty)
    }

    /// The wrong key (here another sensor's UID) deciphers to noise, which the block CRCs
    /// catch: reported as a CRC failure and re-requested.
    @Test func wrongUIDIsACRCFailure() {
        let dump = Libre2FRAMCipherVectors.example
        var driver = reading()
        _ = deliver([Self.info], to: &driver, from: Self.t0)
        let messages = Self.sensorMessages(uid: Libre2FRAMCipherVectors.example2.sensorUID.bytes, patchInfo: dump.patchInfo.bytes) + Self.dataChunks(dump.encrypted)
        let actions = deliver(messages, to: &driver, from: Self.t0 + .seconds(1))
        #expect(Self.glucose(actions).isEmpty)
        #expect(Self.reasons(actions).count == 1)
        #expect(Self.reasons(actions).first?.hasPrefix("Libre FRAM header CRC mismatch") == true)
        #expect(Self.reasons(actions).first?.hasSuffix("re-requested data (retry 1 of 3)") == true)
        #expect(actions.last == Self.requestData)
    }

    /// A US Libre 2 (Gen2) on the bridge: reported with its family, the link kept (a sensor
    /// swap must be heard), and its FRAM ignored until the next cycle's info message.
    @Test func libre2Gen2IsIncompatible() {
        var driver = reading()
        _ = deliver([Self.info], to: &driver, from: Self.t0)
        let actions = deliver([[UInt8](hex: "c1 00 00 00 00 76 08 30 01 73 17")], to: &driver, from: Self.t0)
        let reason = "sensor is Libre 2 Gen2 (US/CA) (patchInfo 76 08 30 01 73 17): its FRAM is encrypted in a way "
            + "Vigil does not decrypt; only Libre 1 and European Libre 2 / 2 Plus are supported"
        #expect(actions == [.emit(.incompatible(reason: reason))])
        #expect(driver.phase == .running(.reading))
        #expect(deliver(Self.dataChunks(), to: &driver, from: Self.t0) == [])
        #expect(driver.nextDeadline == Self.t0 + .seconds(660))  // only the watchdog: nothing was fed
        _ = deliver([Self.info], to: &driver, from: Self.t0 + .seconds(300))
        #expect(!driver.sensorUnsupported)
        #expect(driver.patchInfo == nil)
    }

    @Test func oldFirmwarePatchInfoLayout() {
        var driver = reading()
        _ = deliver([[UInt8](hex: "80 04 01 22 57 00 00 01 00")], to: &driver, from: Self.t0)  // firmware 1.34
        #expect(deliver([[UInt8](hex: "c1 00 00 df 00 00 08 1a 24")], to: &driver, from: Self.t0) == [])
    }

    @Test func noSensorAndNewSensor() {
        var driver = reading()
        #expect(deliver([[0xBF]], to: &driver, from: Self.t0) == [.emit(.sensorNotDetected)])
        _ = deliver([Self.serial] + Self.dataChunks(), to: &driver, from: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 170), takenAt: Self.t0 + .milliseconds(440)), at: Self.t0 + .seconds(1))
        #expect(driver.libre.calibration.method == .offset)
        let other = [UInt8](hex: "c0 08 01 02 03 04 05 06 07 08")
        #expect(deliver([other], to: &driver, from: Self.t0 + .seconds(300))
            == [.emit(.info(TransmitterInfo(serialNumber: "0102030405060708"))), .emit(.newSensorDetected)])
        #expect(driver.libre.calibration == .uncalibrated)
    }

    @Test func infoStartsACycleAndVoidsAHalfRead() {
        var driver = reading()
        _ = deliver(Array(Self.dataChunks().prefix(5)), to: &driver, from: Self.t0)
        #expect(driver.fram.count == 80)
        _ = deliver([Self.info], to: &driver, from: Self.t0 + .seconds(1))
        #expect(driver.fram.isEmpty)
    }

    @Test func unexpectedMessages() {
        var driver = reading()
        #expect(Self.reasons(deliver([[0x8C, 0x00]], to: &driver, from: Self.t0)) == ["Bubble sent 0x8C data, whose content no source describes; Vigil reads 0x82 and 0x88"])
        #expect(Self.reasons(deliver([[0x42, 0x01]], to: &driver, from: Self.t0)) == ["unknown Bubble message 0x42 in 42 01"])
    }

    @Test func watchdogAndDisconnect() {
        var driver = reading()
        let deadline = Self.t0 + .seconds(660)
        #expect(driver.handleDeadline(at: deadline) == [.emit(.noData(since: Self.t0, duration: .seconds(660))), .disconnect(reason: "no Libre reading from the Bubble for 660 s")])
        #expect(driver.receive(.disconnected(reason: "gone"), at: deadline) == [.emit(.disconnected(reason: "gone"))])
        #expect(driver.nextDeadline == nil)
    }

    @Test func registryEntry() throws {
        let driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "bubble")
        #expect(driver.device == "bubble")
        #expect(driver.profile.namePrefix == "Bubble")
    }
}
