import Bluetooth
import Clocks
import Readings
import Testing
@testable import Transmitters

/// The heart-rate session on a virtual clock: time only moves when a test says so, and
/// watchdog tests jump straight to `nextDeadline`.
@Suite struct HeartRateDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let hrm = SIG.Characteristic.heartRateMeasurement
    static let battery = SIG.Characteristic.batteryLevel
    static let location = SIG.Characteristic.bodySensorLocation
    static let manufacturer = SIG.Characteristic.manufacturerNameString
    static let model = SIG.Characteristic.modelNumberString
    static let firmware = SIG.Characteristic.firmwareRevisionString
    static let serial = SIG.Characteristic.serialNumberString

    /// A strap with everything: location, a notifying battery, and four DIS strings, one of
    /// which (serial number) is not readable.
    static let fullStrap = DiscoveredServices([
        SIG.Service.heartRate: [
            DiscoveredCharacteristic(hrm, properties: .notify),
            DiscoveredCharacteristic(location, properties: .read),
            DiscoveredCharacteristic(SIG.Characteristic.heartRateControlPoint, properties: .write),
        ],
        SIG.Service.battery: [DiscoveredCharacteristic(battery, properties: [.read, .notify])],
        SIG.Service.deviceInformation: [
            DiscoveredCharacteristic(manufacturer, properties: .read),
            DiscoveredCharacteristic(model, properties: .read),
            DiscoveredCharacteristic(serial, properties: []),
            DiscoveredCharacteristic(firmware, properties: .read),
        ],
    ])

    static let minimalStrap = DiscoveredServices([SIG.Service.heartRate: [DiscoveredCharacteristic(hrm, properties: .notify)]])

    func started(_ discovered: DiscoveredServices = fullStrap, timeout: Duration = .seconds(30)) -> HeartRateDriver {
        var driver = HeartRateDriver(device: "hr1", configuration: .init(noDataTimeout: timeout))
        _ = driver.start(discovered, at: Self.t0)
        return driver
    }

    func reading(_ value: Reading.Value, at time: MonotonicInstant) -> DriverAction {
        .emit(.reading(Reading(device: "hr1", value: value, time: .monotonic(time))))
    }

    // MARK: - Start

    @Test func startSubscribesThenReadsWhatExists() {
        var driver = HeartRateDriver(device: "hr1")
        #expect(driver.nextDeadline == nil)
        #expect(driver.phase == .notStarted)
        let actions = driver.start(Self.fullStrap, at: Self.t0)
        #expect(actions == [
            .emit(.connected),
            .subscribe(Self.hrm, indications: false),
            .read(Self.location),
            .read(Self.battery),
            .read(Self.model),          // DIS in DeviceInformationString order; serial is not readable
            .read(Self.firmware),
            .read(Self.manufacturer),
            .subscribe(Self.battery, indications: false),
        ])
        #expect(driver.phase == .running(.measuring))
        #expect(driver.pending.count == 7)
        // The watchdog runs from the start, so a subscription that never completes is caught.
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
    }

    @Test func minimalStrapGetsOnlyTheSubscription() {
        var driver = HeartRateDriver(device: "hr1")
        #expect(driver.start(Self.minimalStrap, at: Self.t0) == [.emit(.connected), .subscribe(Self.hrm, indications: false)])
    }

    @Test func batteryThatDoesNotNotifyIsOnlyRead() {
        var discovered = Self.minimalStrap
        discovered.services[SIG.Service.battery] = [DiscoveredCharacteristic(Self.battery, properties: .read)]
        var driver = HeartRateDriver(device: "hr1")
        #expect(driver.start(discovered, at: Self.t0)
            == [.emit(.connected), .subscribe(Self.hrm, indications: false), .read(Self.battery)])
    }

    @Test func characteristicsInTheWrongServiceAreIgnored() {
        // A battery level inside the heart-rate service is not the Battery Service's.
        let discovered = DiscoveredServices([SIG.Service.heartRate: [
            DiscoveredCharacteristic(Self.hrm, properties: .notify),
            DiscoveredCharacteristic(Self.battery, properties: [.read, .notify]),
        ]])
        var driver = HeartRateDriver(device: "hr1")
        #expect(driver.start(discovered, at: Self.t0) == [.emit(.connected), .subscribe(Self.hrm, indications: false)])
    }

    @Test(arguments: [
        (DiscoveredServices(), "no Heart Rate Measurement (0x2A37) in service 0x180D"),
        (DiscoveredServices([SIG.Service.battery: [DiscoveredCharacteristic(hrm, properties: .notify)]]),
         "no Heart Rate Measurement (0x2A37) in service 0x180D"),
        (DiscoveredServices([SIG.Service.heartRate: [DiscoveredCharacteristic(hrm, properties: [.read, .indicate])]]),
         "Heart Rate Measurement (0x2A37) does not notify"),
    ])
    func incompatiblePeerIsReportedAndDropped(discovered: DiscoveredServices, reason: String) {
        var driver = HeartRateDriver(device: "hr1")
        let actions = driver.start(discovered, at: Self.t0)
        // No `connected`: the app must not remember this peer as the transmitter.
        #expect(actions == [.emit(.incompatible(reason: reason)), .disconnect(reason: reason)])
        #expect(driver.phase == .disconnecting(reason: reason))
        #expect(driver.nextDeadline == nil)
    }

    // MARK: - Values

    @Test func measurementsBecomeReadings() {
        var driver = started()
        let at = Self.t0 + .seconds(2)
        // flags 0x1E: contact detected, energy 16 kJ, RR 1024 and 512 ticks; 80 bpm.
        let actions = driver.receive(.value(Self.hrm, [0x1E, 0x50, 0x10, 0x00, 0x00, 0x04, 0x00, 0x02], origin: .notification), at: at)
        #expect(actions == [
            reading(.heartRate(BeatsPerMinute(80), contact: .detected), at: at),
            reading(.rrIntervals([RRInterval(ticks: 1024), RRInterval(ticks: 512)]), at: at),
            reading(.energyExpended(EnergyExpended(kilojoules: 16)), at: at),
        ])
        // The plain form gives one reading.
        #expect(driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: at)
            == [reading(.heartRate(BeatsPerMinute(72), contact: .notReported), at: at)])
    }

    @Test func infoFromReadsAndBatteryNotifications() {
        var driver = started()
        let at = Self.t0 + .seconds(1)
        #expect(driver.receive(.value(Self.location, [0x01], origin: .read), at: at)
            == [.emit(.info(TransmitterInfo(bodySensorLocation: .chest)))])
        #expect(driver.receive(.value(Self.battery, [0x5A], origin: .read), at: at)
            == [.emit(.info(TransmitterInfo(battery: Percent(90))))])
        #expect(driver.receive(.value(Self.manufacturer, Array("Polar Electro Oy".utf8) + [0, 0], origin: .read), at: at)
            == [.emit(.info(TransmitterInfo(manufacturer: "Polar Electro Oy")))])
        #expect(driver.receive(.value(Self.model, Array("H10".utf8), origin: .read), at: at)
            == [.emit(.info(TransmitterInfo(model: "H10")))])
        #expect(driver.receive(.value(Self.firmware, Array("3.1.1".utf8), origin: .read), at: at)
            == [.emit(.info(TransmitterInfo(firmware: "3.1.1")))])
        // Every read is answered: only the two subscriptions are still pending.
        #expect(driver.pending == [.subscribe(Self.hrm), .subscribe(Self.battery)])
        // A later battery notification is info too, and does not touch the pending list.
        #expect(driver.receive(.value(Self.battery, [0x59], origin: .notification), at: at)
            == [.emit(.info(TransmitterInfo(battery: Percent(89))))])
        #expect(driver.pending == [.subscribe(Self.hrm), .subscribe(Self.battery)])
    }

    @Test func malformedValuesAreReportedNotDropped() {
        var driver = started()
        let at = Self.t0 + .seconds(20)
        #expect(driver.receive(.value(Self.hrm, [0x10, 0x48], origin: .notification), at: at) == [
            .emit(.malformedValue(Self.hrm, reason: "truncated at RR-interval (flag set, none present): needed 2 byte(s), 0 left in 10 48")),
        ])
        #expect(driver.receive(.value(Self.battery, [0xFF], origin: .read), at: at) == [
            .emit(.malformedValue(Self.battery, reason: "invalid battery level (101-255 reserved): 255 in ff")),
        ])
        #expect(driver.receive(.value(Self.location, [], origin: .read), at: at) == [
            .emit(.malformedValue(Self.location, reason: "truncated at body sensor location: needed 1 byte(s), 0 left in ")),
        ])
        // Garbage is not data: the watchdog still counts from the start.
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
        // The malformed read still answered the read.
        #expect(!driver.pending.contains(.read(Self.battery)))
    }

    @Test func unknownCharacteristicsAndWriteCompletionsAreIgnored() {
        var driver = started()
        #expect(driver.receive(.value(0xFFF1, [1, 2, 3], origin: .notification), at: Self.t0) == [])
        #expect(driver.receive(.writeCompleted(0x2A39), at: Self.t0) == [])
        #expect(driver.phase == .running(.measuring))
    }

    // MARK: - Watchdog

    @Test func subscriptionAndMeasurementsPushTheWatchdog() {
        var driver = started()
        #expect(driver.receive(.subscribed(Self.hrm), at: Self.t0 + .seconds(3)) == [])
        #expect(driver.nextDeadline == Self.t0 + .seconds(33))
        #expect(!driver.pending.contains(.subscribe(Self.hrm)))
        // A battery subscription is not a measurement subscription.
        _ = driver.receive(.subscribed(Self.battery), at: Self.t0 + .seconds(4))
        #expect(driver.nextDeadline == Self.t0 + .seconds(33))
        _ = driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: Self.t0 + .seconds(20))
        #expect(driver.nextDeadline == Self.t0 + .seconds(50))
        // Battery values are not heart-rate data.
        _ = driver.receive(.value(Self.battery, [0x50], origin: .notification), at: Self.t0 + .seconds(25))
        #expect(driver.nextDeadline == Self.t0 + .seconds(50))
    }

    @Test func watchdogReportsSilenceAndAsksToDisconnect() throws {
        var driver = started(timeout: .seconds(30))
        _ = driver.receive(.subscribed(Self.hrm), at: Self.t0 + .seconds(1))
        _ = driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: Self.t0 + .seconds(5))

        // Nothing happens before the deadline.
        let deadline = try #require(driver.nextDeadline)
        #expect(deadline == Self.t0 + .seconds(35))
        #expect(driver.handleDeadline(at: deadline - .milliseconds(1)) == [])

        let actions = driver.handleDeadline(at: deadline)
        let reason = "no heart-rate measurement for 30 s"
        #expect(actions == [.emit(.noData(since: Self.t0 + .seconds(5), duration: .seconds(30))), .disconnect(reason: reason)])
        #expect(driver.phase == .disconnecting(reason: reason))
        #expect(driver.nextDeadline == nil)
        // Called again, it does nothing more; late values are ignored while disconnecting.
        #expect(driver.handleDeadline(at: deadline + .seconds(60)) == [])
        #expect(driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: deadline) == [])

        // The host confirms; the session ends with an event.
        #expect(driver.receive(.disconnected(reason: "local host terminated connection"), at: deadline)
            == [.emit(.disconnected(reason: "local host terminated connection"))])
        #expect(driver.phase == .disconnected(reason: "local host terminated connection"))
    }

    @Test func lateDeadlineHandlingReportsTheRealSilence() {
        var driver = started(timeout: .seconds(30))
        // The loop was stalled: the deadline is handled 15 s late.
        let actions = driver.handleDeadline(at: Self.t0 + .seconds(45))
        #expect(actions == [.emit(.noData(since: Self.t0, duration: .seconds(45))),
                            .disconnect(reason: "no heart-rate measurement for 45 s")])
    }

    @Test func watchdogTimeoutIsConfigurable() {
        var driver = started(timeout: .seconds(90))
        #expect(driver.nextDeadline == Self.t0 + .seconds(90))
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(89)) == [])
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(90)).count == 2)
    }

    // MARK: - Pairing

    @Test func insufficientAuthenticationAsksForPairingOnceThenRetries() {
        var driver = started()
        let auth = OperationFailure.attError(code: 0x05)
        let encryption = OperationFailure.attError(code: 0x0F)

        #expect(driver.receive(.operationFailed(.subscribe(Self.hrm), auth), at: Self.t0 + .seconds(1))
            == [.emit(.needsPairing), .requestPairing])
        #expect(driver.phase == .running(.measuring) && driver.session.isAwaitingPairing)
        // Further refusals while pairing are parked without a second request.
        #expect(driver.receive(.operationFailed(.read(Self.battery), encryption), at: Self.t0 + .seconds(1)) == [])
        #expect(driver.parkedUntilEncrypted == [.subscribe(Self.hrm), .read(Self.battery)])
        // Unprotected reads still answer meanwhile.
        #expect(driver.receive(.value(Self.location, [0x01], origin: .read), at: Self.t0 + .seconds(1))
            == [.emit(.info(TransmitterInfo(bodySensorLocation: .chest)))])
        // The watchdog keeps running while pairing: SMP could hang.
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))

        let encryptedAt = Self.t0 + .seconds(4)
        #expect(driver.receive(.encrypted, at: encryptedAt)
            == [.emit(.paired), .subscribe(Self.hrm, indications: false), .read(Self.battery)])
        #expect(driver.phase == .running(.measuring))
        #expect(driver.parkedUntilEncrypted.isEmpty)
        #expect(driver.pending.contains(.subscribe(Self.hrm)))
        #expect(driver.nextDeadline == encryptedAt + .seconds(30))

        // Now it works.
        #expect(driver.receive(.subscribed(Self.hrm), at: encryptedAt + .seconds(1)) == [])
        #expect(driver.receive(.value(Self.hrm, [0x06, 0x3C], origin: .notification), at: encryptedAt + .seconds(2))
            == [reading(.heartRate(BeatsPerMinute(60), contact: .detected), at: encryptedAt + .seconds(2))])
    }

    @Test func refusalAfterEncryptionIsNotRetriedForever() {
        var driver = started()
        _ = driver.receive(.operationFailed(.subscribe(Self.hrm), .attError(code: 0x05)), at: Self.t0)
        _ = driver.receive(.encrypted, at: Self.t0 + .seconds(1))
        // Still refused (e.g. the strap wants MITM protection): report and give up on the link.
        let failure = OperationFailure.attError(code: 0x05)
        let reason = "cannot subscribe to heart-rate measurements: ATT error 0x05 (insufficient authentication)"
        #expect(driver.receive(.operationFailed(.subscribe(Self.hrm), failure), at: Self.t0 + .seconds(2))
            == [.emit(.operationFailed(.subscribe(Self.hrm), failure)), .disconnect(reason: reason)])
        #expect(driver.phase == .disconnecting(reason: reason))
    }

    @Test func encryptionFromAStoredBondNeedsNoPairingRequest() {
        var driver = started()
        // The host re-encrypted with a bond before anything was refused.
        #expect(driver.receive(.encrypted, at: Self.t0) == [])
        #expect(driver.phase == .running(.measuring))
        // A refusal on an already encrypted link cannot be cured by pairing again.
        #expect(driver.receive(.operationFailed(.read(Self.battery), .attError(code: 0x0F)), at: Self.t0)
            == [.emit(.operationFailed(.read(Self.battery), .attError(code: 0x0F)))])
    }

    @Test func failedPairingForTheMeasurementDropsTheLink() {
        var driver = started()
        _ = driver.receive(.operationFailed(.subscribe(Self.hrm), .attError(code: 0x05)), at: Self.t0)
        let reason = "pairing failed, so heart-rate measurements are refused: SMP pairing failed 0x05 (pairing not supported)"
        #expect(driver.receive(.pairingFailed(reason: "SMP pairing failed 0x05 (pairing not supported)"), at: Self.t0)
            == [.emit(.pairingFailed(reason: "SMP pairing failed 0x05 (pairing not supported)")), .disconnect(reason: reason)])
        #expect(driver.phase == .disconnecting(reason: reason))
        #expect(driver.nextDeadline == nil)
    }

    @Test func failedPairingForOptionalReadsKeepsStreaming() {
        var driver = started()
        _ = driver.receive(.operationFailed(.read(Self.battery), .attError(code: 0x05)), at: Self.t0)
        #expect(driver.phase == .running(.measuring) && driver.session.isAwaitingPairing)
        #expect(driver.receive(.pairingFailed(reason: "timeout"), at: Self.t0) == [.emit(.pairingFailed(reason: "timeout"))])
        #expect(driver.phase == .running(.measuring))
        #expect(driver.parkedUntilEncrypted.isEmpty)
        #expect(driver.nextDeadline == Self.t0 + .seconds(30))
    }

    @Test func pairingFailureOutsidePairingIsStillReported() {
        var driver = started()
        #expect(driver.receive(.pairingFailed(reason: "bond lost"), at: Self.t0) == [.emit(.pairingFailed(reason: "bond lost"))])
        #expect(driver.phase == .running(.measuring))
    }

    // MARK: - Other failures

    @Test func optionalReadFailureIsReportedAndStreamingContinues() {
        var driver = started()
        #expect(driver.receive(.operationFailed(.read(Self.firmware), .timedOut), at: Self.t0)
            == [.emit(.operationFailed(.read(Self.firmware), .timedOut))])
        #expect(driver.phase == .running(.measuring))
        #expect(!driver.pending.contains(.read(Self.firmware)))
    }

    @Test func batteryReadAndSubscribeFailuresAreTellApart() {
        var driver = started()
        _ = driver.receive(.operationFailed(.subscribe(Self.battery), .attError(code: 0x03)), at: Self.t0)
        #expect(driver.pending.contains(.read(Self.battery)))
        #expect(!driver.pending.contains(.subscribe(Self.battery)))
    }

    @Test func measurementSubscriptionFailureDropsTheLink() {
        var driver = started()
        let reason = "cannot subscribe to heart-rate measurements: timed out"
        #expect(driver.receive(.operationFailed(.subscribe(Self.hrm), .timedOut), at: Self.t0)
            == [.emit(.operationFailed(.subscribe(Self.hrm), .timedOut)), .disconnect(reason: reason)])
        #expect(driver.nextDeadline == nil)
    }

    // MARK: - Life cycle

    @Test func inputsBeforeStartAreIgnored() {
        var driver = HeartRateDriver(device: "hr1")
        #expect(driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: Self.t0) == [])
        #expect(driver.receive(.disconnected(reason: "x"), at: Self.t0) == [])
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(100)) == [])
        #expect(driver.phase == .notStarted)
    }

    @Test func disconnectionEndsTheSessionAndReconnectionStartsAfresh() {
        var driver = started()
        _ = driver.receive(.operationFailed(.read(Self.battery), .attError(code: 0x05)), at: Self.t0)
        #expect(driver.receive(.disconnected(reason: "connection timeout"), at: Self.t0 + .seconds(2))
            == [.emit(.disconnected(reason: "connection timeout"))])
        #expect(driver.nextDeadline == nil)
        #expect(driver.pending.isEmpty && driver.parkedUntilEncrypted.isEmpty)
        #expect(driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: Self.t0 + .seconds(3)) == [])
        #expect(driver.receive(.disconnected(reason: "again"), at: Self.t0 + .seconds(3)) == [])

        // Reconnected: a fresh session, nothing carried over.
        let again = Self.t0 + .seconds(60)
        #expect(driver.start(Self.minimalStrap, at: again) == [.emit(.connected), .subscribe(Self.hrm, indications: false)])
        #expect(driver.phase == .running(.measuring))
        #expect(driver.pending == [.subscribe(Self.hrm)])
        #expect(driver.nextDeadline == again + .seconds(30))
        // Pairing state was reset too: a new refusal asks for pairing again.
        #expect(driver.receive(.operationFailed(.subscribe(Self.hrm), .attError(code: 0x0F)), at: again)
            == [.emit(.needsPairing), .requestPairing])
    }

    @Test func drivesThroughTheExistentialLikeTheApp() throws {
        var driver: any TransmitterDriver = try TransmitterRegistry.builtIn.makeDriver(configurationLine: "heart-rate chest")
        #expect(driver.start(Self.minimalStrap, at: Self.t0).first == .emit(.connected))
        let actions = driver.receive(.value(Self.hrm, [0x00, 0x48], origin: .notification), at: Self.t0)
        #expect(actions == [.emit(.reading(Reading(device: "chest", value: .heartRate(BeatsPerMinute(72), contact: .notReported),
                                                   time: .monotonic(Self.t0))))])
    }
}

/// Random input sequences, from a fixed seed: the driver never traps, and its deadline is
/// consistent with its phase after every step.
@Suite struct HeartRateDriverRobustnessTests {
    struct SplitMix64 {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    @Test(arguments: [UInt64(1), 2, 3, 42, 0xDEAD_BEEF])
    func randomInputsKeepTheDriverConsistent(seed: UInt64) {
        var random = SplitMix64(state: seed)
        let uuids: [BluetoothUUID] = [0x2A37, 0x2A38, 0x2A19, 0x2A24, 0x2A29, 0xFFF1]
        var driver = HeartRateDriver(device: "fuzz")
        var now = MonotonicInstant.zero
        for _ in 0..<2000 {
            now += .milliseconds(random.below(20_000))
            let uuid = uuids[random.below(uuids.count)]
            let bytes = (0..<random.below(10)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            switch random.below(10) {
            case 0: _ = driver.start(HeartRateDriverTests.fullStrap, at: now)
            case 1: _ = driver.receive(.disconnected(reason: "r"), at: now)
            case 2: _ = driver.receive(.encrypted, at: now)
            case 3: _ = driver.receive(.operationFailed(.subscribe(uuid), .attError(code: UInt8(random.below(20)))), at: now)
            case 4: _ = driver.receive(.operationFailed(.read(uuid), .timedOut), at: now)
            case 5: _ = driver.receive(.subscribed(uuid), at: now)
            case 6: _ = driver.receive(.pairingFailed(reason: "p"), at: now)
            case 7: _ = driver.handleDeadline(at: now)
            default: _ = driver.receive(.value(uuid, bytes, origin: random.below(2) == 0 ? .read : .notification), at: now)
            }
            switch driver.phase {
            case .running:
                #expect(driver.nextDeadline != nil)
            case .notStarted, .disconnecting, .disconnected:
                #expect(driver.nextDeadline == nil)
                #expect(driver.pending.isEmpty || driver.phase == .notStarted)
            }
            if !driver.session.isAwaitingPairing { #expect(driver.parkedUntilEncrypted.isEmpty) }
        }
    }
}
