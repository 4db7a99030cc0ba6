import Bluetooth
import Clocks
import Readings
import Testing
import Wire
@testable import Transmitters

/// The CGM Service session on a virtual clock.
@Suite struct CGMServiceDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 3_000_000_000)
    static let measurement = CGMServiceProfile.measurement
    static let feature = CGMServiceProfile.feature
    static let status = CGMServiceProfile.status
    static let startTime = CGMServiceProfile.sessionStartTime
    static let runTime = CGMServiceProfile.sessionRunTime
    static let socp = CGMServiceProfile.specificOpsControlPoint
    static let racp = CGMServiceProfile.recordAccessControlPoint

    static let sensor = DiscoveredServices([SIG.Service.continuousGlucoseMonitoring: [
        DiscoveredCharacteristic(measurement, properties: .notify),
        DiscoveredCharacteristic(feature, properties: .read),
        DiscoveredCharacteristic(status, properties: .read),
        DiscoveredCharacteristic(startTime, properties: [.read, .write]),
        DiscoveredCharacteristic(runTime, properties: .read),
        DiscoveredCharacteristic(socp, properties: [.write, .indicate]),
        DiscoveredCharacteristic(racp, properties: [.write, .indicate]),
    ]])

    static let featureNoCRC = [UInt8](hex: "01 80 00 59 ff ff")      // calibration + trend
    static let featureCRC = [UInt8](hex: "01 90 01 59 7f 40")        // + E2E-CRC + quality
    /// 2026-11-22 06:00:00 at +1 h zone and +1 h DST → 04:00:00 UTC (CGMFeatureTests).
    static let startUTC: Int64 = 1_795_320_000
    static let startTimeBytes = [UInt8](hex: "ea 07 0b 16 06 00 00 04 04")
    static let unsetStartTime = [UInt8](hex: "00 00 00 00 00 00 00 00 00")

    static func statusBytes(offset: UInt16, status: UInt32 = 0) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(offset)
        writer.writeUInt24(status)
        return writer.bytes
    }

    static func record(_ offset: UInt16, mgdl: UInt16 = 120, trend: UInt16? = nil, warning: UInt8? = nil, status: UInt8? = nil,
                       crc: Bool = false) -> [UInt8] {
        CGMMeasurement(glucose: .init(raw: mgdl), timeOffsetMinutes: offset, warningOctet: warning, statusOctet: status,
                       trend: trend.map { .init(raw: $0) }, hasE2ECRC: crc).encoded
    }

    /// A reading as the driver emits it: dated by the session start (read at 2026-11-22
    /// 04:00Z) plus its offset, and stamped with both, the record's identity in its session.
    static func glucose(_ mgdl: Double, trend: TrendDirection? = nil, _ time: Reading.Time) -> DriverAction {
        var stamp: SensorStamp?
        if case let .wallClock(wall) = time {
            stamp = SensorStamp(run: "2026-11-22T04:00:00.000Z", count: (wall.secondsSinceEpoch - startUTC) / 60)
        }
        return .emit(.reading(Reading(device: "cgm", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: trend),
                                      time: time, sensorStamp: stamp)))
    }

    static func wall(_ offsetMinutes: Int64) -> Reading.Time { .wallClock(WallClockTime(secondsSinceEpoch: startUTC + offsetMinutes * 60)) }

    func value(_ uuid: BluetoothUUID, _ bytes: [UInt8], origin: ValueOrigin = .read) -> DriverInput { .value(uuid, bytes, origin: origin) }

    /// Started, with feature, status (offset 300 min) and start time read.
    func running(_ configuration: CGMServiceDriver.Configuration = .init(), feature: [UInt8] = featureNoCRC,
                 start: [UInt8] = startTimeBytes, statusBits: UInt32 = 0) -> CGMServiceDriver {
        var driver = CGMServiceDriver(device: "cgm", configuration: configuration)
        _ = driver.start(Self.sensor, at: Self.t0)
        _ = driver.receive(value(Self.feature, feature), at: Self.t0)
        let crc = feature == Self.featureCRC
        _ = driver.receive(value(Self.status, crc ? CGME2ECRC.appending(to: Self.statusBytes(offset: 300, status: statusBits)) : Self.statusBytes(offset: 300, status: statusBits)), at: Self.t0)
        _ = driver.receive(value(Self.startTime, crc ? CGME2ECRC.appending(to: start) : start), at: Self.t0)
        return driver
    }

    // MARK: - Start

    @Test func startReadsTheSessionThenSubscribes() {
        var driver = CGMServiceDriver(device: "cgm")
        #expect(driver.start(Self.sensor, at: Self.t0) == [
            .emit(.connected), .read(Self.feature), .read(Self.status), .read(Self.startTime), .read(Self.runTime),
            .subscribe(Self.measurement, indications: false), .subscribe(Self.socp, indications: true), .subscribe(Self.racp, indications: true),
        ])
        #expect(driver.nextDeadline == Self.t0 + .seconds(900))
    }

    @Test func refusesAnIncompleteService() {
        var driver = CGMServiceDriver(device: "cgm")
        var discovered = Self.sensor
        discovered.services[SIG.Service.continuousGlucoseMonitoring]?.removeAll { $0.uuid == Self.socp }
        let actions = driver.start(discovered, at: Self.t0)
        guard actions.count == 2, case .emit(.incompatible) = actions[0], case .disconnect = actions[1] else {
            Issue.record("expected incompatible + disconnect, got \(actions)")
            return
        }
        #expect(driver.nextDeadline == nil)
    }

    @Test func sessionInformationIsKept() {
        var driver = CGMServiceDriver(device: "cgm")
        _ = driver.start(Self.sensor, at: Self.t0)
        #expect(driver.receive(value(Self.feature, Self.featureNoCRC), at: Self.t0) == [])
        #expect(driver.feature?.features == [.calibration, .trendInformation])
        #expect(driver.receive(value(Self.status, Self.statusBytes(offset: 300, status: 0x02)), at: Self.t0)
                == [.emit(.info(TransmitterInfo(sensorState: "device battery low", sensorAge: .seconds(18000))))])
        #expect(driver.receive(value(Self.startTime, Self.startTimeBytes), at: Self.t0) == [])
        #expect(driver.sessionStartTime?.utc == WallClockTime(secondsSinceEpoch: Self.startUTC))
        #expect(driver.receive(value(Self.runTime, [0x50, 0x01]), at: Self.t0) == [])
        #expect(driver.sessionRunTime?.hours == 336)
    }

    // MARK: - Measurements

    @Test func measurementsAreDatedBySessionStartPlusOffset() {
        var driver = running()
        let now = Self.t0 + .seconds(60)
        #expect(driver.receive(value(Self.measurement, Self.record(301, trend: 0xFFEC), origin: .notification), at: now)
                == [Self.glucose(120, trend: .singleDown, Self.wall(301))])
        #expect(driver.lastTimeOffsetMinutes == 301)
        #expect(driver.nextDeadline == now + .seconds(900))
    }

    @Test func severalRecordsInOneNotificationAreAllTaken() {
        var driver = running()
        let bytes = Self.record(298) + Self.record(299, mgdl: 118) + Self.record(300, mgdl: 117)
        #expect(driver.receive(value(Self.measurement, bytes, origin: .notification), at: Self.t0)
                == [Self.glucose(120, Self.wall(298)), Self.glucose(118, Self.wall(299)), Self.glucose(117, Self.wall(300))])
    }

    @Test func withoutAStartTimeRecordsAreAnchoredByTheStatus() {
        var driver = running(start: Self.unsetStartTime)
        // Status offset 300 read at t0: a record at offset 290 was measured 10 minutes before t0.
        #expect(driver.receive(value(Self.measurement, Self.record(290), origin: .notification), at: Self.t0 + .seconds(5))
                == [Self.glucose(120, .monotonic(Self.t0 - .seconds(600)))])
    }

    @Test func withNeitherAStartTimeNorAStatusARecordCannotBeDated() {
        var driver = CGMServiceDriver(device: "cgm")
        _ = driver.start(Self.sensor, at: Self.t0)
        _ = driver.receive(.operationFailed(.read(Self.status), .timedOut), at: Self.t0)
        _ = driver.receive(value(Self.startTime, Self.unsetStartTime), at: Self.t0)
        #expect(driver.receive(value(Self.measurement, Self.record(5), origin: .notification), at: Self.t0)
                == [.emit(.malformedValue(Self.measurement, reason: "record at +5 min discarded: neither a session start time nor a status to date it by"))])
    }

    @Test func recordsAlreadyTakenAreSkipped() {
        var driver = running(.init(lastTimeOffsetMinutes: 299))
        #expect(driver.receive(value(Self.measurement, Self.record(299), origin: .notification), at: Self.t0) == [])
        #expect(driver.receive(value(Self.measurement, Self.record(300), origin: .notification), at: Self.t0) == [Self.glucose(120, Self.wall(300))])
    }

    @Test(arguments: [
        (record(310, status: 0x08), "record at +310 min discarded: sensor reports sensor malfunction"),
        (record(310, status: 0x01), "record at +310 min discarded: sensor reports session stopped"),
        (record(310, mgdl: 0x07FF), "record at +310 min discarded: glucose is NaN"),
        (record(310, mgdl: 0x0802), "record at +310 min discarded: glucose is -INF"),
        (record(310, mgdl: 0x0000), "record at +310 min discarded: glucose 0e0 is not positive"),
    ])
    func untrustworthyRecordsAreDiscarded(bytes: [UInt8], reason: String) {
        var driver = running()
        #expect(driver.receive(value(Self.measurement, bytes, origin: .notification), at: Self.t0)
                == [.emit(.malformedValue(Self.measurement, reason: reason))])
    }

    @Test func aPatientLowWarningKeepsTheReading() {
        // Warning octet bit 0 is "below patient low" by the SIG names; Nordic's reading would make
        // it "session stopped" and drop the very value the low alarm needs.
        var driver = running()
        #expect(driver.receive(value(Self.measurement, Self.record(310, mgdl: 55, warning: 0x01), origin: .notification), at: Self.t0)
                == [Self.glucose(55, Self.wall(310))])
    }

    @Test func withE2ECRCAnnouncedRecordsMustCarryAGoodOne() {
        var driver = running(feature: Self.featureCRC)
        #expect(driver.receive(value(Self.measurement, Self.record(301, crc: true), origin: .notification), at: Self.t0) == [Self.glucose(120, Self.wall(301))])
        var corrupted = Self.record(302, crc: true)
        corrupted[corrupted.count - 1] ^= 0xFF
        let bad = driver.receive(value(Self.measurement, corrupted, origin: .notification), at: Self.t0)
        guard case let .emit(.malformedValue(_, reason)) = bad.first, bad.count == 1 else {
            Issue.record("expected one malformed value, got \(bad)")
            return
        }
        #expect(reason.hasPrefix("CGM Measurement: E2E-CRC"))
        let missing = driver.receive(value(Self.measurement, Self.record(303), origin: .notification), at: Self.t0)
        #expect(missing == [.emit(.malformedValue(Self.measurement, reason: "CGM Measurement: E2E-CRC missing although CGM Feature announces it in \(Self.record(303).hexString)"))])
        #expect(driver.lastTimeOffsetMinutes == 301)
    }

    @Test func aBadRecordDoesNotTakeItsNeighboursDown() {
        var driver = running()
        var corrupted = Self.record(302, crc: true)
        corrupted[corrupted.count - 1] ^= 0xFF
        let actions = driver.receive(value(Self.measurement, Self.record(301) + corrupted + Self.record(303), origin: .notification), at: Self.t0)
        #expect(actions.count == 3)
        #expect(actions.first == Self.glucose(120, Self.wall(301)))
        #expect(actions.last == Self.glucose(120, Self.wall(303)))
        guard case let .emit(.malformedValue(_, reason)) = actions[1] else {
            Issue.record("expected the middle record to be reported, got \(actions)")
            return
        }
        #expect(reason.hasSuffix("in \(corrupted.hexString)"))
        // Sizes that do not add up lose the whole notification: no boundary is trustworthy.
        #expect(driver.receive(value(Self.measurement, [0x09] + Self.record(304).dropFirst(), origin: .notification), at: Self.t0).count == 1)
    }

    @Test func aStatusGoingBackwardsMeansANewSensor() {
        var driver = CGMServiceDriver(device: "cgm", configuration: .init(lastTimeOffsetMinutes: 5000))
        _ = driver.start(Self.sensor, at: Self.t0)
        #expect(driver.receive(value(Self.status, Self.statusBytes(offset: 10)), at: Self.t0)
                == [.emit(.newSensorDetected), .emit(.info(TransmitterInfo(sensorState: "ok", sensorAge: .seconds(600))))])
        #expect(driver.lastTimeOffsetMinutes == nil)
        // So the new session's records are all asked for, not only those past minute 5000.
        #expect(driver.receive(.subscribed(Self.racp), at: Self.t0) == [.write(Self.racp, [0x01, 0x01], withResponse: true)])
    }

    // MARK: - RACP

    @Test func racpAsksForAllRecordsThenOnlyNewerOnes() {
        var first = running()
        #expect(first.receive(.subscribed(Self.racp), at: Self.t0) == [.write(Self.racp, [0x01, 0x01], withResponse: true)])
        var later = running(.init(lastTimeOffsetMinutes: 295))
        #expect(later.receive(.subscribed(Self.racp), at: Self.t0) == [.write(Self.racp, [UInt8](hex: "01 03 01 28 01"), withResponse: true)])
        #expect(later.recordTransfer == .awaitingRecords(request: .reportRecords(atLeast: 296)) && later.session.deadline(of: .recordTransfer) == Self.t0 + .seconds(30))
    }

    @Test func racpSuccessAndNoRecords() {
        for code: UInt8 in [0x01, 0x06] {
            var driver = running()
            _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
            _ = driver.receive(value(Self.measurement, Self.record(299), origin: .notification), at: Self.t0)
            #expect(driver.receive(value(Self.racp, [0x06, 0x00, 0x01, code], origin: .indication), at: Self.t0)
                    == [.emit(.info(TransmitterInfo(sensorState: "records up to date, last time offset 299 min")))])
            #expect(driver.recordTransfer == nil)
        }
    }

    @Test func racpErrorIsReported() {
        var driver = running()
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 01 09"), origin: .indication), at: Self.t0)
                == [.emit(.operationFailed(.write(Self.racp), .other("RACP op 1 refused: operand not supported")))])
    }

    @Test func racpTimeoutAbortsAndAnUnansweredAbortIsReported() throws {
        var driver = running()
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        let deadline = try #require(driver.nextDeadline)
        #expect(deadline == Self.t0 + .seconds(30))
        #expect(driver.handleDeadline(at: deadline) == [
            .emit(.operationFailed(.write(Self.racp), .other("RACP reportStoredRecords: nothing for 30 s; aborting"))),
            .write(Self.racp, [0x03, 0x00], withResponse: true),
        ])
        let abortDeadline = try #require(driver.nextDeadline)
        #expect(abortDeadline == deadline + .seconds(30))
        #expect(driver.handleDeadline(at: abortDeadline) == [.emit(.operationFailed(.write(Self.racp), .other("RACP abort: no response")))])
        #expect(driver.recordTransfer == nil)
        #expect(driver.phase == .running(.measuring))  // live measurements still flow
    }

    @Test func racpAbortAnswered() throws {
        var driver = running()
        _ = driver.receive(.subscribed(Self.racp), at: Self.t0)
        _ = driver.handleDeadline(at: try #require(driver.nextDeadline))
        #expect(driver.receive(value(Self.racp, [UInt8](hex: "06 00 03 01"), origin: .indication), at: Self.t0 + .seconds(31))
                == [.emit(.info(TransmitterInfo(sensorState: "record transfer aborted, no records")))])
    }

    // MARK: - SOCP

    @Test func startAndStopSession() {
        var driver = running()
        #expect(driver.startSession(at: Self.t0) == [.write(Self.socp, [0x1A], withResponse: true)])
        #expect(driver.stopSession(at: Self.t0) == [.emit(.operationFailed(.write(Self.socp), .other("SOCP stopSession not sent: another session command is in progress")))])
        #expect(driver.receive(value(Self.socp, [UInt8](hex: "1c 1a 01"), origin: .indication), at: Self.t0)
                == [.emit(.info(TransmitterInfo(sensorState: "session started"))), .read(Self.status), .read(Self.startTime)])
        #expect(driver.stopSession(at: Self.t0) == [.write(Self.socp, [0x1B], withResponse: true)])
        #expect(driver.receive(value(Self.socp, [UInt8](hex: "1c 1b 01"), origin: .indication), at: Self.t0)
                == [.emit(.info(TransmitterInfo(sensorState: "session stopped"))), .read(Self.status), .read(Self.startTime)])
    }

    @Test func sessionCommandsCarryTheCRCWhenAnnounced() {
        var driver = running(feature: Self.featureCRC)
        #expect(driver.startSession(at: Self.t0) == [.write(Self.socp, [UInt8](hex: "1a 5c b0"), withResponse: true)])
        #expect(driver.receive(value(Self.socp, [UInt8](hex: "1c 1a 01 6d 60"), origin: .indication), at: Self.t0).count == 3)
    }

    @Test func sessionCommandRefusedOrUnansweredOrUnasked() throws {
        var driver = running()
        _ = driver.startSession(at: Self.t0)
        #expect(driver.receive(value(Self.socp, [UInt8](hex: "1c 1a 04"), origin: .indication), at: Self.t0)
                == [.emit(.operationFailed(.write(Self.socp), .other("SOCP startSession refused: procedure not completed")))])
        #expect(driver.receive(value(Self.socp, [UInt8](hex: "1c 1a 01"), origin: .indication), at: Self.t0)
                == [.emit(.malformedValue(Self.socp, reason: "SOCP response to op 26 that was not asked for"))])
        _ = driver.stopSession(at: Self.t0)
        let deadline = try #require(driver.nextDeadline)
        #expect(deadline == Self.t0 + .seconds(30))
        #expect(driver.handleDeadline(at: deadline) == [.emit(.operationFailed(.write(Self.socp), .other("SOCP stopSession: no response in 30 s")))])
        #expect(driver.pendingSessionCommand == nil)
    }

    @Test func startSessionConfigurationStartsAStoppedSession() {
        var stopped = running(.init(startSessionWhenStopped: true), statusBits: 0x01)
        #expect(stopped.receive(.subscribed(Self.socp), at: Self.t0) == [.write(Self.socp, [0x1A], withResponse: true)])
        var active = running(.init(startSessionWhenStopped: true))
        #expect(active.receive(.subscribed(Self.socp), at: Self.t0) == [])
        var byDefault = running(statusBits: 0x01)
        #expect(byDefault.receive(.subscribed(Self.socp), at: Self.t0) == [])
    }

    // MARK: - Watchdog and failures

    @Test func watchdogDisconnectsAQuietSensor() throws {
        var driver = running()
        let deadline = try #require(driver.nextDeadline)
        #expect(driver.handleDeadline(at: deadline) == [
            .emit(.noData(since: Self.t0, duration: .seconds(900))),
            .disconnect(reason: "no CGM measurement for 900 s"),
        ])
        #expect(driver.nextDeadline == nil)
        #expect(driver.receive(.disconnected(reason: "bye"), at: deadline) == [.emit(.disconnected(reason: "bye"))])
    }

    @Test func losingTheMeasurementSubscriptionDisconnects() {
        var driver = running()
        #expect(driver.receive(.operationFailed(.subscribe(Self.measurement), .attError(code: 0x05)), at: Self.t0) == [
            .emit(.operationFailed(.subscribe(Self.measurement), .attError(code: 0x05))),
            .disconnect(reason: "cannot subscribe to CGM measurements: ATT error 0x05 (insufficient authentication)"),
        ])
    }

    @Test func malformedSessionValuesAreReported() {
        var driver = CGMServiceDriver(device: "cgm")
        _ = driver.start(Self.sensor, at: Self.t0)
        #expect(driver.receive(value(Self.startTime, [0x00]), at: Self.t0).count == 1)
        #expect(driver.receive(value(Self.feature, [0x00]), at: Self.t0).count == 1)
        #expect(driver.receive(value(Self.runTime, [0x00]), at: Self.t0).count == 1)
        #expect(driver.receive(value(Self.racp, [0x06], origin: .indication), at: Self.t0).count == 1)
    }

    // MARK: - Configuration

    @Test func registryBuildsTheDriver() throws {
        let driver = try #require(try TransmitterRegistry.builtIn.makeDriver(configurationLine: "cgm-service cgm last-time-offset=1440 start-session=true no-data-timeout=10m racp-timeout=45s") as? CGMServiceDriver)
        #expect(driver.configuration == .init(lastTimeOffsetMinutes: 1440, startSessionWhenStopped: true, noDataTimeout: .seconds(600), procedureTimeout: .seconds(45)))
        #expect(driver.lastTimeOffsetMinutes == 1440)
    }

    @Test(arguments: ["cgm-service c last-time-offset=-1", "cgm-service c start-session=yes", "cgm-service c session=1"])
    func registryRejects(line: String) {
        #expect(throws: TransmitterConfigurationError.self) { try TransmitterRegistry.builtIn.makeDriver(configurationLine: line) }
    }
}
