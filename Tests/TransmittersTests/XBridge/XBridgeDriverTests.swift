import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The xBridge session on a virtual clock: time moves only when a test says so.
@Suite struct XBridgeDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let serial = XBridge.serialCharacteristic
    static let hm10 = DiscoveredServices([XBridge.service: [DiscoveredCharacteristic(serial, properties: [.read, .writeWithoutResponse, .notify])]])
    static let ours = try! XBridgeTransmitterID("6ABCD")
    static let neighbour = try! XBridgeTransmitterID("ABCDE")

    static func data(raw: UInt32, id: XBridgeTransmitterID = ours, delay: Duration? = .zero, bridge: UInt8 = 87) -> [UInt8] {
        XBridgeDataPacket(raw: raw, filteredTimesTwo: raw * 2, transmitterBattery: 214, bridgeBattery: bridge,
                          transmitterID: id.rawValue, delay: delay).encoded
    }

    func started(at now: MonotonicInstant = t0) -> XBridgeDriver {
        var driver = XBridgeDriver(device: "g4", configuration: .init(transmitterID: Self.ours))
        _ = driver.start(Self.hm10, at: now)
        return driver
    }

    static let ack = DriverAction.write(serial, [0x02, 0xF0], withResponse: false)
    static let txid = DriverAction.write(serial, [UInt8](hex: "06 01 8d 2d 65 00"), withResponse: false)

    static func info(_ state: String, battery: Int? = 87) -> DriverAction {
        .emit(.info(TransmitterInfo(battery: battery.flatMap(Percent.init), sensorState: state)))
    }

    static func glucose(_ mgdl: Double, at time: MonotonicInstant) -> DriverAction {
        .emit(.reading(Reading(device: "g4", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: nil), time: .monotonic(time))))
    }

    // MARK: - Start

    @Test func startSubscribesAndArmsTheWatchdog() {
        var driver = XBridgeDriver(device: "g4", configuration: .init(transmitterID: Self.ours))
        #expect(driver.nextDeadline == nil)
        #expect(driver.start(Self.hm10, at: Self.t0) == [.emit(.connected), .subscribe(Self.serial, indications: false)])
        #expect(driver.phase == .awaitingPackets)
        #expect(driver.nextDeadline == Self.t0 + .seconds(660))
    }

    @Test(arguments: [
        DiscoveredServices(),
        DiscoveredServices([XBridge.service: [DiscoveredCharacteristic(serial, properties: [.read, .writeWithoutResponse])]]),
        DiscoveredServices([XBridge.service: [DiscoveredCharacteristic(serial, properties: [.read, .notify])]]),
    ])
    func refusesAPeerWithoutAUsableSerialCharacteristic(discovered: DiscoveredServices) {
        var driver = XBridgeDriver(device: "g4", configuration: .init(transmitterID: Self.ours))
        let actions = driver.start(discovered, at: Self.t0)
        #expect(actions.count == 2)
        guard case .emit(.incompatible) = actions.first, case .disconnect = actions.last else {
            Issue.record("expected incompatible + disconnect, got \(actions)")
            return
        }
        #expect(driver.nextDeadline == nil)
    }

    @Test func writesWithResponseWhenThatIsAllTheCharacteristicTakes() {
        var driver = XBridgeDriver(device: "g4", configuration: .init(transmitterID: Self.ours))
        _ = driver.start(DiscoveredServices([XBridge.service: [DiscoveredCharacteristic(Self.serial, properties: [.write, .notify])]]), at: Self.t0)
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: Self.t0).first
                == .write(Self.serial, [0x02, 0xF0], withResponse: true))
    }

    // MARK: - Beacon and transmitter ID

    @Test func beaconWithOurIDNeedsNoAnswer() {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, XBridgeBeacon(transmitterID: Self.ours.rawValue).encoded, origin: .notification), at: Self.t0) == [])
    }

    @Test(arguments: [UInt32(0), neighbour.rawValue])
    func beaconWithAnotherIDIsAnsweredWithOurs(id: UInt32) {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, XBridgeBeacon(transmitterID: id).encoded, origin: .notification), at: Self.t0) == [Self.txid])
    }

    @Test func dataFromAnotherTransmitterIsDiscardedAndTheIDSent() {
        var driver = started()
        let later = Self.t0 + .seconds(300)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 150_000, id: Self.neighbour), origin: .notification), at: later)
        #expect(actions == [
            .emit(.malformedValue(Self.serial, reason: "transmitter ID mismatch: the bridge heard ABCDE, configured 6ABCD; reading discarded")),
            Self.txid,
        ])
        #expect(driver.recentRaw.isEmpty)
        // Not fed: a bridge relaying only a neighbour's G4 is as good as silent.
        #expect(driver.nextDeadline == Self.t0 + .seconds(660))
    }

    // MARK: - Data and calibration

    @Test func uncalibratedDataIsAcknowledgedAndReportedAsRawInfoOnly() {
        var driver = started()
        let now = Self.t0 + .seconds(300)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: now)
        #expect(actions == [Self.ack, Self.info("needs calibration: raw 150000, G4 battery 214")])
        #expect(driver.nextDeadline == now + .seconds(660))
        #expect(driver.recentRaw.map(\.raw) == [150_000])
    }

    @Test func calibrationAfterARawValueCalibratesTheNextOnes() {
        var driver = started()
        let first = Self.t0 + .seconds(300)
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: first)
        let fingerstick = GlucoseConcentration(milligramsPerDeciliter: 120)
        #expect(driver.receive(.calibration(fingerstick, takenAt: first + .seconds(60)), at: first + .seconds(90))
                == [.emit(.info(TransmitterInfo(sensorState: "calibrated with 120 mg/dL at raw 150000")))])
        #expect(driver.calibration.isCalibrated)

        // Next packet: 2.5 s late in the bridge (delay), so the reading is dated 2.5 s earlier.
        let second = first + .seconds(300)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 175_000, delay: .milliseconds(2500)), origin: .notification), at: second)
        #expect(actions == [Self.ack, Self.glucose(140, at: second - .milliseconds(2500)), Self.info("calibrated, raw 175000, G4 battery 214")])
    }

    @Test func calibrationBeforeAnyRawWaitsForTheNextPacket() {
        var driver = started()
        let fingerstick = GlucoseConcentration(milligramsPerDeciliter: 100)
        #expect(driver.receive(.calibration(fingerstick, takenAt: Self.t0), at: Self.t0) == [])
        #expect(driver.unpairedCalibrations.count == 1)
        let now = Self.t0 + .seconds(240)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 200_000), origin: .notification), at: now)
        #expect(actions == [
            Self.ack,
            .emit(.info(TransmitterInfo(sensorState: "calibrated with 100 mg/dL at raw 200000"))),
            Self.glucose(100, at: now),
            Self.info("calibrated, raw 200000, G4 battery 214"),
        ])
        #expect(driver.unpairedCalibrations.isEmpty)
    }

    @Test func aCalibrationTooFarFromAnyRawIsReportedUnused() {
        var driver = started()
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 100), takenAt: Self.t0), at: Self.t0)
        let now = Self.t0 + .seconds(11 * 60)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 200_000), origin: .notification), at: now)
        #expect(actions == [
            Self.ack,
            .emit(.info(TransmitterInfo(sensorState: "calibration 100 mg/dL at \(Self.t0) not used: no raw value within 10 min of it"))),
            Self.info("needs calibration: raw 200000, G4 battery 214"),
        ])
        #expect(!driver.calibration.isCalibrated)
        #expect(driver.unpairedCalibrations.isEmpty)
    }

    @Test func aZeroRawIsNoSensorValue() {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 0), origin: .notification), at: Self.t0)
                == [Self.ack, Self.info("no sensor value (raw 0), G4 battery 214")])
    }

    @Test func aCalibrationThatYieldsANonPositiveGlucoseIsNotReported() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 100_000), origin: .notification), at: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 80), takenAt: Self.t0), at: Self.t0)
        let t1 = Self.t0 + .seconds(300)
        _ = driver.receive(.value(Self.serial, Self.data(raw: 200_000), origin: .notification), at: t1)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 230), takenAt: t1), at: t1)
        // Line: slope 0.0015, intercept −70 → raw 40 000 gives −10 mg/dL.
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 40_000), origin: .notification), at: t1 + .seconds(300))
        #expect(actions.count == 3)
        #expect(actions.first == Self.ack)
        guard case .emit(.malformedValue(_, let reason)) = actions[1] else {
            Issue.record("expected a discarded value, got \(actions)")
            return
        }
        #expect(reason.contains("not a glucose"))
    }

    @Test func asciiPacketsAreNotAcknowledged() {
        var driver = started()
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 110), takenAt: Self.t0), at: Self.t0)
        let actions = driver.receive(.value(Self.serial, Array("110000 218 0 60".utf8), origin: .notification), at: Self.t0)
        #expect(actions == [
            .emit(.info(TransmitterInfo(sensorState: "calibrated with 110 mg/dL at raw 110000"))),
            Self.glucose(110, at: Self.t0),
            .emit(.info(TransmitterInfo(sensorState: "calibrated, raw 110000, G4 battery 218", sensorAge: .seconds(3600)))),
        ])
    }

    @Test func nullAndMalformedPackets() {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, [0x00], origin: .notification), at: Self.t0) == [])
        #expect(driver.receive(.value(Self.serial, [UInt8](hex: "15 00 01"), origin: .notification), at: Self.t0)
                == [.emit(.malformedValue(Self.serial, reason: "xBridge data packet says 21 bytes but has 3 in 15 00 01"))])
        #expect(driver.phase == .awaitingPackets)
    }

    // MARK: - Failures and time

    @Test func watchdogDisconnectsAfterElevenQuietMinutes() {
        var driver = started()
        let t1 = Self.t0 + .seconds(300)
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: t1)
        let deadline = try! #require(driver.nextDeadline)
        #expect(deadline == t1 + .seconds(660))
        #expect(driver.handleDeadline(at: deadline - .seconds(1)) == [])
        #expect(driver.handleDeadline(at: deadline) == [
            .emit(.noData(since: t1, duration: .seconds(660))),
            .disconnect(reason: "no G4 data from the bridge for 660 s"),
        ])
        #expect(driver.nextDeadline == nil)
        #expect(driver.receive(.disconnected(reason: "link lost"), at: deadline) == [.emit(.disconnected(reason: "link lost"))])
        #expect(driver.receive(.disconnected(reason: "again"), at: deadline) == [])
    }

    @Test func aFailedSubscriptionEndsTheSession() {
        var driver = started()
        let actions = driver.receive(.operationFailed(.subscribe(Self.serial), .timedOut), at: Self.t0)
        #expect(actions == [
            .emit(.operationFailed(.subscribe(Self.serial), .timedOut)),
            .disconnect(reason: "cannot subscribe to the bridge's notifications: timed out"),
        ])
        #expect(driver.phase == .disconnecting(reason: "cannot subscribe to the bridge's notifications: timed out"))
    }

    @Test func calibrationSurvivesAReconnection() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 150), takenAt: Self.t0), at: Self.t0)
        _ = driver.receive(.disconnected(reason: "out of range"), at: Self.t0)
        let later = Self.t0 + .seconds(3600)
        _ = driver.start(Self.hm10, at: later)
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 100_000), origin: .notification), at: later)
                == [Self.ack, Self.glucose(100, at: later), Self.info("calibrated, raw 100000, G4 battery 214")])
    }

    // MARK: - Configuration

    @Test func registryBuildsTheDriverFromAConfigurationLine() throws {
        let driver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "xbridge g4 transmitter-id=6abcd no-data-timeout=20m")
        let xbridge = try #require(driver as? XBridgeDriver)
        #expect(xbridge.device == "g4")
        #expect(xbridge.configuration == .init(transmitterID: Self.ours, noDataTimeout: .seconds(1200)))
    }

    @Test(arguments: ["xbridge", "xbridge g4 transmitter-id=ABCDI", "xbridge g4 transmitter-id=ABC", "xbridge g4 transmitter-id=ABCDE txid=1"])
    func registryRejects(line: String) {
        #expect(throws: TransmitterConfigurationError.self) { try TransmitterRegistry.builtIn.makeDriver(configurationLine: line) }
    }
}
