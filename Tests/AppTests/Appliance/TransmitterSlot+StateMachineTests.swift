@testable import App
import Bluetooth
import Clocks
import Host
import Readings
import Testing
import Transmitters

/// A driver that answers from a script: what it does when it starts, and what it asks for when
/// it hears of a calibration or of its link's encryption. It records every input, so a test can
/// see what the slot handed it.
struct ScriptedDriver: TransmitterDriver {
    static let service = BluetoothUUID(0xFFF0)
    static let data = BluetoothUUID(0xFFF1)
    static let profile = TransmitterProfile(service: service, receiveCharacteristic: data)

    let device: DeviceID = "scripted"
    var onStart: [DriverAction] = [.emit(.connected)]
    var onEncrypted: [DriverAction] = []
    var received: [DriverInput] = []
    var nextDeadline: MonotonicInstant? { nil }

    mutating func start(_ discovered: DiscoveredServices, at now: MonotonicInstant) -> [DriverAction] { onStart }

    mutating func receive(_ input: DriverInput, at now: MonotonicInstant) -> [DriverAction] {
        received.append(input)
        return input == .encrypted ? onEncrypted : []
    }

    mutating func handleDeadline(at now: MonotonicInstant) -> [DriverAction] { [] }
}

@Suite("A transmitter slot's state machine on its own")
struct TransmitterSlotStateMachineTests {
    static let peer = DeviceAddress(Address(value: 0xC0_01_02_03_04_05), type: .random)
    static let handle: UInt16 = 0x0040
    static let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    /// The database a `ScriptedDriver` needs: its service with its one characteristic.
    static let database = GATT.Database(entries: [GATT.Database.Entry(
        service: GATT.Service(uuid: ScriptedDriver.service, startHandle: 0x10, endHandle: 0x13),
        characteristics: [GATT.Characteristic(uuid: ScriptedDriver.data, declarationHandle: 0x11, valueHandle: 0x12,
                                              properties: [.read, .notify], endHandle: 0x13)])])

    static func slot(_ driver: ScriptedDriver = ScriptedDriver(), securityFirst: Bool = false) -> TransmitterSlot {
        TransmitterSlot(driver: driver, matcher: TransmitterMatcher(profile: ScriptedDriver.profile, remembered: nil),
                        securityFirst: securityFirst)
    }

    /// Connects the slot and returns the discovery request it asked for, handed back as the
    /// appliance does with the host's ID.
    static func connect(_ slot: inout TransmitterSlot, at now: MonotonicInstant, request id: GATTClient.RequestID = 1) {
        #expect(slot.receive(.advertisement(from: peer), at: now) == [.event(.connecting("scripted", peer: peer)), .connect(peer)])
        #expect(slot.state == .connecting(to: peer))
        #expect(slot.receive(.connected(handle: handle, peer: peer), at: now) == [.gatt(.discoverDatabase, handle: handle, for: .discovery)])
        #expect(slot.state == .discovering(handle: handle))
        slot.sent(.discovery, as: id)
    }

    /// Connects, discovers the database and starts the driver; returns the effects of the start.
    @discardableResult
    static func run(_ slot: inout TransmitterSlot, at now: MonotonicInstant) -> [TransmitterSlot.Effect] {
        connect(&slot, at: now)
        let effects = slot.receive(.gatt(1, .database(database)), at: now)
        #expect(slot.state == .running(handle: handle))
        return effects
    }

    /// The link drops; returns how long the slot waits before searching again.
    static func drop(_ slot: inout TransmitterSlot, at now: MonotonicInstant) -> Duration? {
        _ = slot.receive(.disconnected(peer: peer, reason: "Remote User Terminated Connection"), at: now)
        #expect(slot.handle == nil)
        switch slot.state {
        case .waitingToReconnect(let until), .waitingForNextReading(let until): return until - now
        default: return nil
        }
    }

    /// Three sessions that drop before discovery, each one second long; returns when the slot
    /// searches again, with the back-off at 8 s.
    static func failThrice(_ slot: inout TransmitterSlot) -> MonotonicInstant {
        var now = start
        for _ in 0..<3 {
            connect(&slot, at: now)
            now = now + .seconds(1) + (drop(&slot, at: now + .seconds(1)) ?? .zero)
            _ = slot.receive(.deadline, at: now)
        }
        #expect(slot.state == .searching)
        return now
    }

    @Test("sessions that fail before the driver begins double the back-off up to 60 s, then stay at 60 s")
    func backoffDoubles() {
        var slot = Self.slot()
        var now = Self.start
        var waits: [Duration] = []
        for _ in 0..<9 {
            Self.connect(&slot, at: now)
            let wait = Self.drop(&slot, at: now + .seconds(2))
            waits.append(wait ?? .zero)
            now = now + .seconds(2) + (wait ?? .zero)
            #expect(slot.nextDeadline == now)
            #expect(slot.receive(.deadline, at: now).isEmpty)
            #expect(slot.state == .searching)
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test("a failed connection attempt waits out the back-off too, and says why")
    func connectionFailureBacksOff() {
        var slot = Self.slot()
        _ = slot.receive(.advertisement(from: Self.peer), at: Self.start)
        let effects = slot.receive(.connectionFailed(peer: Self.peer, reason: "timed out"), at: Self.start)
        #expect(effects == [.event(.transmitter("scripted", peer: Self.peer, .disconnected(reason: "could not connect: timed out")))])
        #expect(slot.state == .waitingToReconnect(until: Self.start + .seconds(1)))
        #expect(slot.backoff == .seconds(2))
    }

    @Test("the back-off starts over after a session in which the driver began")
    func backoffResetsAfterConnectedSession() {
        var slot = Self.slot()
        let now = Self.failThrice(&slot)
        #expect(slot.backoff == .seconds(8))
        let effects = Self.run(&slot, at: now)
        #expect(effects.contains(.event(.transmitter("scripted", peer: Self.peer, .connected))))
        #expect(effects.contains(.remember(Self.peer)))
        #expect(Self.drop(&slot, at: now + .seconds(5)) == .seconds(1), "retried at once, not after 8 s")
        #expect(slot.backoff == .seconds(2))
    }

    @Test("a refused session keeps the back-off growing, even though the driver began")
    func refusedSessionKeepsBackoff() {
        var driver = ScriptedDriver()
        driver.onStart = [.emit(.connected), .emit(.incompatible(reason: "wrong transmitter ID")), .disconnect(reason: "wrong ID")]
        var slot = Self.slot(driver)
        var now = Self.start
        var waits: [Duration] = []
        for _ in 0..<3 {
            let effects = Self.run(&slot, at: now)
            #expect(effects.contains(.disconnect(handle: Self.handle)))
            let wait = Self.drop(&slot, at: now + .seconds(3)) ?? .zero
            waits.append(wait)
            now = now + .seconds(3) + wait
            _ = slot.receive(.deadline, at: now)
        }
        #expect(waits == [1, 2, 4].map { Duration.seconds($0) })
    }

    @Test("a missing service refuses the session: the slot closes the link and backs off")
    func missingServiceRefuses() {
        var slot = Self.slot()
        Self.connect(&slot, at: Self.start)
        let effects = slot.receive(.gatt(1, .database(GATT.Database(entries: []))), at: Self.start)
        #expect(effects == [
            .event(.transmitter("scripted", peer: Self.peer, .incompatible(reason: "service \(ScriptedDriver.service) not found"))),
            .disconnect(handle: Self.handle),
        ])
        #expect(slot.link.progress == .refused)
        let wait = Self.drop(&slot, at: Self.start + .seconds(1))
        #expect(wait == .seconds(1))
        #expect(slot.backoff == .seconds(2))
    }

    @Test("a link that ran over a minute starts the back-off over, whatever its end")
    func longLinkResetsBackoff() {
        var slot = Self.slot()
        let now = Self.failThrice(&slot)
        Self.connect(&slot, at: now)
        #expect(Self.drop(&slot, at: now + .seconds(61)) == .seconds(1))
    }

    @Test("after a session that delivered and named the next reading's time, the slot waits for it")
    func waitsForNextReading() {
        let reading = Reading(device: "scripted", value: .heartRate(BeatsPerMinute(70), contact: .detected), time: .monotonic(Self.start))
        var driver = ScriptedDriver()
        driver.onStart = [.emit(.connected), .emit(.reading(reading)), .nextSession(notBefore: Self.start + .seconds(300)), .disconnect(reason: "done")]
        var slot = Self.slot(driver)
        let effects = Self.run(&slot, at: Self.start)
        #expect(effects.contains(.event(.readings("scripted", peer: Self.peer, [reading]))))
        #expect(effects.last == .disconnect(handle: Self.handle))
        #expect(slot.link.progress == .delivered)
        let end = Self.start + .seconds(2)
        _ = slot.receive(.disconnected(peer: Self.peer, reason: "Connection Terminated By Local Host"), at: end)
        #expect(slot.state == .waitingForNextReading(until: Self.start + .seconds(300)))
        #expect(slot.nextDeadline == Self.start + .seconds(300))
        _ = slot.receive(.deadline, at: Self.start + .seconds(299))
        #expect(slot.state == .waitingForNextReading(until: Self.start + .seconds(300)), "not a moment early")
        _ = slot.receive(.deadline, at: Self.start + .seconds(300))
        #expect(slot.state == .searching)
        #expect(slot.backoff == .seconds(1), "a session that did its work is no failure")
    }

    @Test("a next reading already due is not waited for: the slot backs off from 1 s")
    func nextReadingInThePast() {
        var driver = ScriptedDriver()
        driver.onStart = [.emit(.connected), .nextSession(notBefore: Self.start)]
        var slot = Self.slot(driver)
        Self.run(&slot, at: Self.start)
        #expect(Self.drop(&slot, at: Self.start + .seconds(5)) == .seconds(1))
        #expect(slot.state == .waitingToReconnect(until: Self.start + .seconds(6)))
    }

    @Test("the reason the slot closed a link goes into the disconnection, and a refused Disconnect is asked again")
    func closingIsRetriedAndExplained() {
        var driver = ScriptedDriver()
        driver.onStart = [.disconnect(reason: "session over")]
        var slot = Self.slot(driver)
        #expect(Self.run(&slot, at: Self.start).last == .disconnect(handle: Self.handle))
        #expect(slot.nextDeadline == Self.start + TransmitterSlot.closeRetryInterval)
        #expect(slot.receive(.deadline, at: Self.start + .seconds(10)) == [.disconnect(handle: Self.handle)])
        let effects = slot.receive(.disconnected(peer: Self.peer, reason: "Remote User Terminated Connection"), at: Self.start + .seconds(11))
        #expect(effects == [.event(.transmitter("scripted", peer: Self.peer,
                                                .disconnected(reason: "driver: session over; link: Remote User Terminated Connection")))])
        #expect(slot.link.closeRetryAt == nil)
    }

    @Test("a driver's request to pair is answered at once on an encrypted link, else by securing it")
    func pairingRequest() {
        var driver = ScriptedDriver()
        driver.onStart = [.requestPairing]
        driver.onEncrypted = [.read(ScriptedDriver.data)]
        var onPlainLink = Self.slot(driver)
        #expect(Self.run(&onPlainLink, at: Self.start).last == .secure(handle: Self.handle))
        #expect(onPlainLink.link.driverAwaitsEncryption)
        let effects = onPlainLink.receive(.encrypted(bonded: true), at: Self.start)
        #expect(effects == [.event(.encrypted("scripted", peer: Self.peer, bonded: true)),
                            .gatt(.read(handle: 0x12), handle: Self.handle, for: .driver(.read(ScriptedDriver.data)))])

        var onEncryptedLink = Self.slot(driver)
        Self.connect(&onEncryptedLink, at: Self.start)
        let atOnce = onEncryptedLink.receive(.gatt(1, .database(Self.database)), at: Self.start, linkIsEncrypted: true)
        #expect(atOnce.last == .gatt(.read(handle: 0x12), handle: Self.handle, for: .driver(.read(ScriptedDriver.data))))
        #expect(!atOnce.contains(.secure(handle: Self.handle)))
    }

    @Test("calibrations that come while the link is down are handed to the driver when it starts")
    func calibrationsWaitForTheLink() throws {
        var slot = Self.slot()
        let reference = GlucoseConcentration(milligramsPerDeciliter: 120)
        for minute in 0..<12 {
            #expect(slot.receive(.calibration(reference, takenAt: Self.start + .seconds(60 * minute)), at: Self.start).isEmpty)
        }
        #expect(slot.pendingCalibrations.count == TransmitterSlot.pendingCalibrationLimit, "the newest kept")
        Self.run(&slot, at: Self.start + .seconds(720))
        #expect(slot.pendingCalibrations.isEmpty)
        let driver = try #require(slot.driver as? ScriptedDriver)
        #expect(driver.received.first == .calibration(reference, takenAt: Self.start + .seconds(120)))
        #expect(driver.received.count == 10)
    }
}
