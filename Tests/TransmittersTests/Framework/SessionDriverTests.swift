import Bluetooth
import Clocks
import Readings
import Testing
@testable import Transmitters

/// The session skeleton `SessionDriver` gives every connected driver, on a virtual clock: once
/// through a driver that records what its hooks were asked, then through real drivers for the
/// pairing path every driver now has.
@Suite struct SessionDriverTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
    static let service = BluetoothUUID(0xFFF0)
    static let data = BluetoothUUID(0xFFF1)
    static let extra = BluetoothUUID(0xFFF2)
    static let peer = DiscoveredServices([service: [DiscoveredCharacteristic(data, properties: .notify),
                                                    DiscoveredCharacteristic(extra, properties: .read)]])

    /// Reads what it is given and notes every hook the session calls, so the order is visible.
    struct Recorder: SessionDriver {
        enum Stage: Hashable, Sendable { case listening }
        enum Timer: Hashable, Comparable, Sendable { case poll }
        static var profile: TransmitterProfile { TransmitterProfile(service: service, receiveCharacteristic: data) }
        let device: DeviceID = "probe"
        var session = DriverSession<Stage, Timer>(noDataTimeout: .seconds(60))
        var log: [String] = []

        var silence: String { "probe value" }
        func incompatibility(_ discovered: DiscoveredServices) -> String? {
            discovered.characteristic(data, in: service) == nil ? "no probe data" : nil
        }
        mutating func begin(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> (Stage, [DriverAction]) {
            log.append("begin")
            session.schedule(.poll, at: now + .seconds(60))
            return (.listening, [.subscribe(data, indications: false), .read(extra)])
        }
        mutating func handle(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
            log.append("handle \(input)")
            return []
        }
        mutating func timerFired(_ timer: Timer, at now: MonotonicInstant) -> [DriverAction] {
            log.append("timer \(timer)")
            return [.read(extra)]
        }
        func essentialFailure(_ operation: GATTOperation, _ failure: String) -> String? {
            operation == .subscribe(data) ? "no data: \(failure)" : nil
        }
        mutating func sessionEnded() { log.append("ended") }
        mutating func linkLost() -> [DriverAction] {
            log.append("link lost")
            return [.emit(.info(TransmitterInfo(sensorState: "held back")))]
        }
    }

    @Test func anIncompatiblePeerIsRefusedWithoutConnected() {
        var driver = Recorder()
        #expect(driver.start(DiscoveredServices(), at: Self.t0) == [.emit(.incompatible(reason: "no probe data")), .disconnect(reason: "no probe data")])
        #expect(driver.phase == .disconnecting(reason: "no probe data"))
        #expect(driver.log == ["ended"], "the last session's state is dropped, and nothing begins")
        #expect(driver.nextDeadline == nil)
    }

    @Test func aSessionWithARetryAsksAgainToDropALinkThatStaysUp() {
        var driver = Recorder()
        driver.session = DriverSession(noDataTimeout: .seconds(60), disconnectRetry: .seconds(5))
        _ = driver.start(DiscoveredServices(), at: Self.t0)
        #expect(driver.nextDeadline == Self.t0 + .seconds(5))
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(5)) == [.disconnect(reason: "no probe data")])
        _ = driver.receive(.disconnected(reason: "gone"), at: Self.t0 + .seconds(6))
        #expect(driver.nextDeadline == nil)
    }

    @Test func aPairingFailureAfterTheSessionIsIgnoredByDefault() {
        var driver = Recorder()
        _ = driver.start(Self.peer, at: Self.t0)
        #expect(driver.receive(.pairingFailed(reason: "timed out"), at: Self.t0) == [.emit(.pairingFailed(reason: "timed out"))])
        _ = driver.receive(.disconnected(reason: "gone"), at: Self.t0)
        #expect(driver.receive(.pairingFailed(reason: "timed out"), at: Self.t0) == [])
        #expect(!driver.log.contains { $0.hasPrefix("handle") }, "a pairing failure is the session's, not the driver's handle")
    }

    @Test func aCompatiblePeerIsConnectedAndItsRequestsTracked() {
        var driver = Recorder()
        #expect(driver.start(Self.peer, at: Self.t0) == [.emit(.connected), .subscribe(Self.data, indications: false), .read(Self.extra)])
        #expect(driver.phase == .running(.listening))
        #expect(driver.pending == [.subscribe(Self.data), .read(Self.extra)])
        _ = driver.receive(.value(Self.extra, [1], origin: .read), at: Self.t0)
        _ = driver.receive(.subscribed(Self.data), at: Self.t0)
        #expect(driver.pending.isEmpty)
        #expect(driver.log == ["ended", "begin", "handle \(DriverInput.value(Self.extra, [1], origin: .read))", "handle \(DriverInput.subscribed(Self.data))"])
    }

    @Test func theLinkDroppingEndsTheSessionOnceAfterWhatWasHeldBack() {
        var driver = Recorder()
        #expect(driver.receive(.disconnected(reason: "early"), at: Self.t0) == [], "no session yet")
        _ = driver.start(Self.peer, at: Self.t0)
        driver.log = []
        #expect(driver.receive(.disconnected(reason: "gone"), at: Self.t0)
            == [.emit(.info(TransmitterInfo(sensorState: "held back"))), .emit(.disconnected(reason: "gone"))])
        #expect(driver.log == ["link lost", "ended"])
        #expect(driver.receive(.disconnected(reason: "gone"), at: Self.t0) == [], "reported once")
        #expect(driver.receive(.value(Self.data, [1], origin: .notification), at: Self.t0) == [], "nothing reaches an ended session")
        #expect(driver.nextDeadline == nil && driver.pending.isEmpty)
    }

    @Test func anEssentialRefusalEndsTheSessionAnOptionalOneIsOnlyReported() {
        var driver = Recorder()
        _ = driver.start(Self.peer, at: Self.t0)
        #expect(driver.receive(.operationFailed(.read(Self.extra), .timedOut), at: Self.t0) == [.emit(.operationFailed(.read(Self.extra), .timedOut))])
        #expect(driver.phase == .running(.listening))
        let failure = OperationFailure.attError(code: 0x03)
        #expect(driver.receive(.operationFailed(.subscribe(Self.data), failure), at: Self.t0)
            == [.emit(.operationFailed(.subscribe(Self.data), failure)), .disconnect(reason: "no data: \(failure)")])
        #expect(driver.phase == .disconnecting(reason: "no data: \(failure)"))
        #expect(driver.handleDeadline(at: Self.t0 + .seconds(600)) == [], "an ending session times nothing")
    }

    @Test func timersFireBeforeTheWatchdogAndTheirRequestsAreTracked() {
        var driver = Recorder()
        _ = driver.start(Self.peer, at: Self.t0)
        _ = driver.receive(.value(Self.extra, [1], origin: .read), at: Self.t0)
        _ = driver.receive(.subscribed(Self.data), at: Self.t0)
        #expect(driver.nextDeadline == Self.t0 + .seconds(60))
        let late = Self.t0 + .seconds(61)
        #expect(driver.handleDeadline(at: late) == [
            .read(Self.extra),
            .emit(.noData(since: Self.t0, duration: .seconds(61))),
            .disconnect(reason: "no probe value for 61 s"),
        ])
        #expect(driver.log.suffix(2) == ["timer poll", "ended"])
    }

    // MARK: - Parked until paired, in drivers other than heart rate

    static let uart = DiscoveredServices([NordicUART.service: [
        DiscoveredCharacteristic(NordicUART.receive, properties: .notify),
        DiscoveredCharacteristic(NordicUART.write, properties: .writeWithoutResponse),
    ]])

    @Test func aMiaoMiaoThatWantsPairingIsPairedAndSubscribedAgain() {
        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(Self.uart, at: Self.t0)
        let refusal = OperationFailure.attError(code: 0x05)
        #expect(driver.receive(.operationFailed(.subscribe(NordicUART.receive), refusal), at: Self.t0) == [.emit(.needsPairing), .requestPairing])
        #expect(driver.parkedUntilEncrypted == [.subscribe(NordicUART.receive)] && driver.session.isAwaitingPairing)
        let paired = Self.t0 + .seconds(5)
        #expect(driver.receive(.encrypted, at: paired) == [.emit(.paired), .subscribe(NordicUART.receive, indications: false)])
        #expect(driver.pending == [.subscribe(NordicUART.receive)])
        #expect(driver.nextDeadline == paired + .seconds(660), "timed from the pairing, not from the start")
        #expect(driver.receive(.subscribed(NordicUART.receive), at: paired) == [.write(NordicUART.write, [0xF0], withResponse: false)])
        #expect(driver.phase == .running(.reading))
    }

    @Test func aRefusalAfterPairingIsFinal() {
        var driver = MiaoMiaoDriver(device: "mm")
        _ = driver.start(Self.uart, at: Self.t0)
        let refusal = OperationFailure.attError(code: 0x0F)
        _ = driver.receive(.operationFailed(.subscribe(NordicUART.receive), refusal), at: Self.t0)
        _ = driver.receive(.encrypted, at: Self.t0)
        #expect(driver.receive(.operationFailed(.subscribe(NordicUART.receive), refusal), at: Self.t0) == [
            .emit(.operationFailed(.subscribe(NordicUART.receive), refusal)),
            .disconnect(reason: "cannot subscribe to the MiaoMiao: \(refusal)"),
        ])
    }

    @Test func aSensorTagParksEveryRefusedRequestAndAsksForPairingOnce() {
        var driver = SensorTagDriver(device: "tag")
        let tag = DiscoveredServices([SensorTagProfile.humidityService: [
            DiscoveredCharacteristic(SensorTagProfile.humidityData, properties: .notify),
            DiscoveredCharacteristic(SensorTagProfile.humidityConfiguration, properties: .write),
        ]])
        _ = driver.start(tag, at: Self.t0)
        let data = GATTOperation.subscribe(SensorTagProfile.humidityData)
        let enable = GATTOperation.write(SensorTagProfile.humidityConfiguration)
        #expect(driver.receive(.operationFailed(data, .attError(code: 0x05)), at: Self.t0) == [.emit(.needsPairing), .requestPairing])
        #expect(driver.receive(.operationFailed(enable, .attError(code: 0x0F)), at: Self.t0) == [], "pairing is already under way")
        #expect(driver.receive(.encrypted, at: Self.t0) == [
            .emit(.paired),
            .subscribe(SensorTagProfile.humidityData, indications: false),
            .write(SensorTagProfile.humidityConfiguration, SensorTagProfile.enable, withResponse: true),
        ])
        #expect(driver.pending == [data, enable])
    }

    @Test func anXBridgeWhosePairingFailsEndsTheSession() throws {
        var driver = XBridgeDriver(device: "g4", configuration: .init(transmitterID: try XBridgeTransmitterID("6ABCD")))
        let bridge = DiscoveredServices([XBridge.service: [DiscoveredCharacteristic(XBridge.serialCharacteristic, properties: [.notify, .writeWithoutResponse])]])
        _ = driver.start(bridge, at: Self.t0)
        _ = driver.receive(.operationFailed(.subscribe(XBridge.serialCharacteristic), .attError(code: 0x05)), at: Self.t0)
        #expect(driver.receive(.pairingFailed(reason: "timed out"), at: Self.t0) == [
            .emit(.pairingFailed(reason: "timed out")),
            .disconnect(reason: "cannot subscribe to the bridge's notifications: pairing failed: timed out"),
        ])
        #expect(driver.parkedUntilEncrypted.isEmpty)
    }

    /// A Dexcom bonds as a step after its own authentication: a request it refuses for lack of
    /// encryption is an ordinary failure (the session ends and the next cycle bonds), and a
    /// pairing failure while bonding is the Dexcom's to word (a bond it had is lost).
    @Test func aDexcomNeverPairsOnARefusalAndWordsItsOwnPairingFailure() throws {
        let id = try Dexcom.TransmitterID("8112AB")
        var driver = DexcomDriver(device: "g6", configuration: .init(transmitterID: id), makeToken: { [1, 2, 3, 4, 5, 6, 7, 8] })
        let dexcom = DiscoveredServices([DexcomProfile.cgmService: [
            DiscoveredCharacteristic(DexcomProfile.control, properties: [.indicate, .write]),
            DiscoveredCharacteristic(DexcomProfile.authentication, properties: [.read, .write, .indicate]),
        ]])
        _ = driver.start(dexcom, at: Self.t0)
        let write = GATTOperation.write(DexcomProfile.authentication)
        #expect(driver.receive(.operationFailed(write, .attError(code: 0x05)), at: Self.t0) == [
            .emit(.operationFailed(write, .attError(code: 0x05))),
            .disconnect(reason: "\(write) failed: \(OperationFailure.attError(code: 0x05))"),
        ])
        #expect(driver.parkedUntilEncrypted.isEmpty)
        #expect(driver.receive(.pairingFailed(reason: "late"), at: Self.t0) == [.emit(.pairingFailed(reason: "late"))],
                "reported even after the session, as Dexcom always did")
    }

    /// A meter's link is encrypted before its session starts (its profile requires it): a
    /// refusal for lack of encryption is the meter's last word, not a reason to pair again.
    @Test func aTypeThatRequiresEncryptionDoesNotPairAgain() {
        var driver = GlucoseMeterDriver(device: "meter")
        let meter = DiscoveredServices([SIG.Service.glucose: [
            DiscoveredCharacteristic(GlucoseMeterProfile.measurement, properties: .notify),
            DiscoveredCharacteristic(GlucoseMeterProfile.recordAccessControlPoint, properties: [.indicate, .write]),
        ]])
        _ = driver.start(meter, at: Self.t0)
        let operation = GATTOperation.subscribe(GlucoseMeterProfile.measurement)
        let actions = driver.receive(.operationFailed(operation, .attError(code: 0x05)), at: Self.t0)
        #expect(actions.first == .emit(.operationFailed(operation, .attError(code: 0x05))))
        #expect(!actions.contains(.requestPairing))
    }
}
