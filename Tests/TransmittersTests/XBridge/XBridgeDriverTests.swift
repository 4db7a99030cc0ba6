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
        #expect(driver.phase == .running(.awaitingPackets))
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

    /// What the driver reports of a fingerstick it was offered.
    static func calibration(_ reference: GlucoseConcentration, takenAt: MonotonicInstant, _ outcome: CalibrationReport.Outcome) -> DriverAction {
        .emit(.calibration(CalibrationReport(reference: reference, takenAt: takenAt, outcome: outcome)))
    }

    @Test func calibrationAfterARawValueCalibratesTheNextOnes() {
        var driver = started()
        let first = Self.t0 + .seconds(300)
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: first)
        let fingerstick = GlucoseConcentration(milligramsPerDeciliter: 120)
        // One fingerstick: slope 1, intercept 120 − 150 000 / 1000 = −30 (XBridgeCalibrationTests).
        #expect(driver.receive(.calibration(fingerstick, takenAt: first + .seconds(60)), at: first + .seconds(90))
                == [Self.calibration(fingerstick, takenAt: first + .seconds(60),
                                     .accepted(detail: "at raw 150000: slope 1.0, intercept -30.0 mg/dL from 1 fingerstick(s) (one fingerstick, offset only)"))])
        #expect(driver.calibration.isCalibrated)

        // Next packet: 2.5 s late in the bridge (delay), so the reading is dated 2.5 s earlier;
        // 175 − 30 = 145 mg/dL.
        let second = first + .seconds(300)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 175_000, delay: .milliseconds(2500)), origin: .notification), at: second)
        #expect(actions == [Self.ack, Self.glucose(145, at: second - .milliseconds(2500)), Self.info("calibrated, raw 175000, G4 battery 214")])
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
            Self.calibration(fingerstick, takenAt: Self.t0,
                             .accepted(detail: "at raw 200000: slope 1.0, intercept -100.0 mg/dL from 1 fingerstick(s) (one fingerstick, offset only)")),
            Self.glucose(100, at: now),
            Self.info("calibrated, raw 200000, G4 battery 214"),
        ])
        #expect(driver.unpairedCalibrations.isEmpty)
    }

    @Test func aCalibrationTooFarFromAnyRawIsReportedRefused() {
        var driver = started()
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 100), takenAt: Self.t0), at: Self.t0)
        let now = Self.t0 + .seconds(11 * 60)
        let actions = driver.receive(.value(Self.serial, Self.data(raw: 200_000), origin: .notification), at: now)
        #expect(actions == [
            Self.ack,
            Self.calibration(GlucoseConcentration(milligramsPerDeciliter: 100), takenAt: Self.t0,
                             .notUsed(reason: "taken at \(Self.t0), no raw value within 10 min of it")),
            Self.info("needs calibration: raw 200000, G4 battery 214"),
        ])
        #expect(!driver.calibration.isCalibrated)
        #expect(driver.unpairedCalibrations.isEmpty)
    }

    @Test func aZeroRawIsNoSensorValue() {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 0), origin: .notification), at: Self.t0)
                == [Self.ack, Self.info("no sensor signal (raw 0, below 5000), G4 battery 214")])
        #expect(driver.recentRaw.isEmpty, "not a value to calibrate against")
    }

    /// Fingersticks outside 40–400 mg/dL never calibrate (xDrip+ `Calibration.getConvertedBg`:
    /// null below 40 or above 400), and say so; the edges do.
    @Test(arguments: [(39.0, false), (40, true), (400, true), (401, false), (20, false), (600, false)])
    func fingerstickRange(mgdl: Double, accepted: Bool) {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: Self.t0)
        let actions = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: Self.t0), at: Self.t0)
        if accepted {
            #expect(driver.calibration.points.count == 1, "\(actions)")
        } else {
            #expect(actions == [Self.calibration(GlucoseConcentration(milligramsPerDeciliter: mgdl), takenAt: Self.t0,
                                                 .notUsed(reason: "outside 40–400 mg/dL, the range calibration accepts"))])
            #expect(driver.calibration.points.isEmpty)
        }
    }

    /// A line the sanity check refuses is reported, and the line in use stays: raw 100 000 at
    /// 150 mg/dL alone would need intercept 50, above xDrip's 39.
    @Test func aRefusedLineIsReported() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 100_000), origin: .notification), at: Self.t0)
        #expect(driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 150), takenAt: Self.t0), at: Self.t0) == [
            Self.calibration(GlucoseConcentration(milligramsPerDeciliter: 150), takenAt: Self.t0,
                             .notUsed(reason: "intercept 50.0 mg/dL is above 39 (xDrip's highest sane intercept): raw 100000 against 150 mg/dL "
                                + "looks like no working sensor; still uncalibrated")),
        ])
        #expect(!driver.calibration.isCalibrated)
    }

    /// A raw count below xDrip's sane minimum (5000 = 5 raw units) means no working sensor under
    /// the transmitter: the old sensor's calibration is cleared, and the next sensor starts
    /// uncalibrated. 5000 itself is a sensor value.
    @Test func noSensorSignalClearsTheCalibration() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 120), takenAt: Self.t0), at: Self.t0)
        #expect(driver.calibration.isCalibrated)
        let t1 = Self.t0 + .seconds(300)
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 4_999), origin: .notification), at: t1) == [
            Self.ack,
            Self.info("no sensor signal (raw 4999, below 5000): calibration cleared, the next sensor needs a fingerstick, G4 battery 214"),
        ])
        #expect(!driver.calibration.isCalibrated && driver.calibration.points.isEmpty)
        let t2 = t1 + .seconds(300)
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 5_000), origin: .notification), at: t2)
                == [Self.ack, Self.info("needs calibration: raw 5000, G4 battery 214")])
    }

    /// Above xDrip's sane maximum (1000 raw units) a count is not a sensor value.
    @Test func aRawAboveTheSaneMaximumIsDiscarded() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 150_000), origin: .notification), at: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 120), takenAt: Self.t0), at: Self.t0)
        #expect(driver.receive(.value(Self.serial, Self.data(raw: 1_000_001), origin: .notification), at: Self.t0 + .seconds(300)) == [
            Self.ack,
            .emit(.malformedValue(Self.serial, reason: "raw 1000001 is above 1000000, xDrip's sane maximum: not a sensor value; discarded")),
            Self.info("raw 1000001 discarded, G4 battery 214"),
        ])
        #expect(driver.calibration.isCalibrated, "a glitch is not a sensor change")
    }

    @Test func aCalibrationThatYieldsANonPositiveGlucoseIsNotReported() {
        var driver = started()
        _ = driver.receive(.value(Self.serial, Self.data(raw: 100_000), origin: .notification), at: Self.t0)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 80), takenAt: Self.t0), at: Self.t0)
        let t1 = Self.t0 + .seconds(300)
        _ = driver.receive(.value(Self.serial, Self.data(raw: 200_000), origin: .notification), at: t1)
        _ = driver.receive(.calibration(GlucoseConcentration(milligramsPerDeciliter: 230), takenAt: t1), at: t1)
        // Least squares through (100, 80) and (200, 230) raw units: slope 1.5 (the two-point
        // bound, still inside), intercept −70 → raw 40 000 gives 60 − 70 = −10 mg/dL.
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
            Self.calibration(GlucoseConcentration(milligramsPerDeciliter: 110), takenAt: Self.t0,
                             .accepted(detail: "at raw 110000: slope 1.0, intercept 0.0 mg/dL from 1 fingerstick(s) (one fingerstick, offset only)")),
            Self.glucose(110, at: Self.t0),
            .emit(.info(TransmitterInfo(sensorState: "calibrated, raw 110000, G4 battery 218", sensorAge: .seconds(3600)))),
        ])
    }

    @Test func nullAndMalformedPackets() {
        var driver = started()
        #expect(driver.receive(.value(Self.serial, [0x00], origin: .notification), at: Self.t0) == [])
        #expect(driver.receive(.value(Self.serial, [UInt8](hex: "15 00 01"), origin: .notification), at: Self.t0)
                == [.emit(.malformedValue(Self.serial, reason: "xBridge data packet says 21 bytes but has 3 in 15 00 01"))])
        #expect(driver.phase == .running(.awaitingPackets))
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
