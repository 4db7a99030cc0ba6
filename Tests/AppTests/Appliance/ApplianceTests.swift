import App
import Bluetooth
import Clocks
import HCI
import Host
import Readings
import SMP
import Simulator
import Testing
import Transmitters

@Suite("Appliance against the simulated radio")
struct ApplianceTests {
    @Test("finds the heart-rate monitor, remembers it, and decodes its notifications")
    func findsAndDecodes() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.advance(by: .seconds(10))
        #expect(world.events.contains(.rememberedAddress("strap", ApplianceWorld.hrmAddress)))
        #expect(world.transmitterEvents { $0 == .connected } == 1)
        let rates = world.readings.flatMap { $0 }.compactMap { r -> UInt16? in
            if case .heartRate(let bpm, _) = r.value { bpm.value } else { nil }
        }
        // One measurement a second once subscribed: at least 5 in 10 s, all plausible.
        #expect(rates.count >= 5)
        #expect(rates.allSatisfy { (40...200).contains($0) })
        #expect(world.appliance.remembered.address(for: "strap") == ApplianceWorld.hrmAddress)
        #expect(world.controller.violations.isEmpty)
    }

    @Test("values on attributes outside the database are dropped, and said at most once a minute")
    func ignoredValuesAreReported() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.advance(by: .seconds(10))
        let handle = try #require(world.host.handle(for: ApplianceWorld.hrmAddress))
        func ignored() -> [(attribute: UInt16, count: Int)] {
            world.events.compactMap { if case let .ignoredValues(_, _, attribute, count) = $0 { (attribute, count) } else { nil } }
        }
        // Appliance and host taken out of the world for the calls: both are its properties,
        // and a nested function sees the world only through a dynamically checked capture.
        func flood(_ n: Int) {
            var appliance = world.appliance
            var host = world.host
            for _ in 0..<n {
                appliance.handle(.notification(handle: handle, attribute: 0x0999, value: [0x00, 0x50]), host: &host, at: world.now)
            }
            world.events += appliance.takeEvents()
            world.appliance = appliance
            world.host = host
        }
        flood(50)
        #expect(ignored().map(\.count) == [1], "the first at once, the rest held back")
        #expect(ignored().first?.attribute == 0x0999)
        let readingsBefore = world.readings.count
        world.advance(by: .seconds(61))
        #expect(world.readings.count > readingsBefore, "the strap's own readings go on")
        flood(1)
        #expect(ignored().map(\.count) == [1, 50], "a minute later: the 49 held back and this one")
        let line = try #require(world.events.last { if case .ignoredValues = $0 { true } else { false } }).logLine
        #expect(line == "strap (C0:11:22:33:44:55): ignored 50 values on attribute 0x0999, which is no characteristic of its database")
    }

    @Test("pairs with LE Secure Connections before use when configured to")
    func pairsFirst() throws {
        let hrm = SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: SMPPeripheralSecurity.factory())
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate(pair: true)], peripherals: [hrm])
        world.start()
        world.advance(by: .seconds(10))
        #expect(world.events.contains(.paired("strap", peer: ApplianceWorld.hrmAddress, secureConnections: true)))
        #expect(world.events.contains(.encrypted("strap", peer: ApplianceWorld.hrmAddress, bonded: true)))
        #expect(world.readings.count >= 5)
        #expect(world.host.bonds.bond(for: ApplianceWorld.hrmAddress) != nil)
    }

    @Test("pairs when the strap answers 'insufficient authentication', then subscribes")
    func pairsWhenAsked() throws {
        let hrm = SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: SMPPeripheralSecurity.factory())
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate(pair: false)], peripherals: [hrm])
        world.start()
        world.advance(by: .seconds(10))
        #expect(world.transmitterEvents { $0 == .needsPairing } == 1)
        #expect(world.events.contains { if case .paired = $0 { true } else { false } })
        #expect(world.readings.count >= 5)
    }

    @Test("reconnects after a supervision timeout, straight to the remembered address")
    func reconnects() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.advance(by: .seconds(5))
        let handle = try #require(world.controller.connectionHandles.first)
        world.controller.dropConnection(handle: handle, reason: .connectionTimeout, at: world.now)
        world.pump()
        #expect(world.events.contains { if case .transmitter(_, _, .disconnected) = $0 { true } else { false } })
        let before = world.readings.count
        world.advance(by: .seconds(10))
        #expect(world.transmitterEvents { $0 == .connected } == 2)
        #expect(world.readings.count > before + 3)
    }

    @Test("a strap that vanishes is reported, and the appliance reconnects the moment it advertises again")
    func vanishes() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.advance(by: .seconds(5))
        world.controller.vanish(ApplianceWorld.hrmAddress.address, at: world.now)
        world.advance(by: .seconds(120))
        #expect(world.events.contains { if case .transmitter(_, _, .disconnected) = $0 { true } else { false } })
        // While it is unheard, nothing hammers the radio with connection attempts.
        let attempts = world.events.filter { if case .connecting = $0 { true } else { false } }.count
        #expect(attempts == 1)
        #expect(world.host.isScanning)
        world.controller.radio[ApplianceWorld.hrmAddress.address]?.reappear(at: world.now)
        let before = world.readings.count
        world.advance(by: .seconds(10))
        #expect(world.transmitterEvents { $0 == .connected } == 2)
        #expect(world.readings.count > before + 3)
    }

    @Test("a strap that stays connected but goes quiet is dropped by its driver, and reported disconnected once, with the driver's reason")
    func quietStrapIsDisconnectedOnce() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [Self.quietStrap()])
        world.start()
        // The driver's watchdog is 30 s; the reconnection waits at least 1 s after the drop.
        world.advance(by: .seconds(31))
        #expect(world.transmitterEvents { if case .noData = $0 { true } else { false } } == 1)
        let reasons = world.events.compactMap { event -> String? in
            if case .transmitter(_, _, .disconnected(let reason)) = event { reason } else { nil }
        }
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("driver: no heart-rate measurement for 30 s; link: ") == true)
        #expect(world.controller.violations.isEmpty)
    }

    @Test("a Disconnect the controller refuses is asked again until the link closes, and the strap is found again")
    func refusedDisconnectIsRetried() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [Self.quietStrap()])
        world.refuse[0x0406] = 2  // HCI_Disconnect (Vol 4 Part E §7.1.6)
        world.start()
        world.advance(by: .seconds(31))
        // Watchdog at 30 s: the Disconnect is refused, so the link is still up.
        #expect(world.transmitterEvents { if case .noData = $0 { true } else { false } } == 1)
        #expect(world.transmitterEvents { if case .disconnected = $0 { true } else { false } } == 0)
        #expect(world.controller.connectionHandles.count == 1)
        // Asked again 10 s later (refused again), then at 50 s it goes through.
        world.advance(by: .seconds(10))
        #expect(world.controller.connectionHandles.count == 1)
        world.advance(by: .seconds(10))
        #expect(world.controller.connectionHandles.isEmpty)
        let reasons = world.events.compactMap { event -> String? in
            if case .transmitter(_, _, .disconnected(let reason)) = event { reason } else { nil }
        }
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("driver: no heart-rate measurement for 30 s; link: ") == true)
        #expect(world.refuse[0x0406] == 0)
        // And it reconnects: the slot is not stuck on a link nobody uses.
        world.advance(by: .seconds(5))
        #expect(world.transmitterEvents { $0 == .connected } == 2)
    }

    @Test("a BTHome fridge thermometer is read from its advertisements, never connected")
    func broadcastThermometer() throws {
        let decoder = try BroadcastRegistry.builtIn.makeDecoder(TransmitterConfiguration(typeName: "bthome", device: "fridge"))
        var world = ApplianceWorld(devices: [Appliance.Device(decoder: decoder)], peripherals: [SimulatedThermometer.bthome()])
        world.start()
        world.advance(by: .seconds(20))
        let temperatures = world.readings.flatMap { $0 }.compactMap { r -> Double? in
            if case .temperature(let t) = r.value { t.degreesCelsius } else { nil }
        }
        #expect(temperatures.count >= 3)
        #expect(temperatures.allSatisfy { (-10...40).contains($0) })
        #expect(world.events.contains { if case .rememberedAddress("fridge", _) = $0 { true } else { false } })
        #expect(world.controller.connectionHandles.isEmpty)
    }

    @Test("a Dexcom G6 authenticates, bonds and delivers glucose on the simulated radio")
    func dexcom() throws {
        var world = try ApplianceWorld.withDexcom()
        world.start()
        world.advance(by: .seconds(660))
        let glucose = world.readings.flatMap { $0 }.compactMap { r -> Double? in
            if case .glucose(let g, _) = r.value { g.milligramsPerDeciliter } else { nil }
        }
        #expect(!glucose.isEmpty, "events: \(world.events.suffix(20))")
        #expect(glucose.allSatisfy { (40...400).contains($0) })
        #expect(world.events.contains { if case .paired = $0 { true } else { false } })
        // Remembered once the transmitter proved it holds our ID (TransmitterProfile.remembersPeer).
        #expect(world.appliance.remembered.address(for: "g6") != nil)
    }

    /// A transmitter that stays connectable after its Disconnect (the simulated G6 wakes again
    /// 2 s later instead of 5 min) was read about once a second, its current reading delivered
    /// each time. Now each reading is delivered once and the sessions follow the readings.
    @Test("a Dexcom that stays connectable is read once per reading, not hammered")
    func aConnectableDexcomIsPaced() throws {
        var world = try ApplianceWorld.withDexcom(cycle: .seconds(2))
        world.start()
        world.advance(by: .seconds(20 * 60))
        let readings = world.readings.flatMap { $0 }.filter { $0.kind == .glucose }
        let stamps = readings.compactMap(\.sensorStamp)
        #expect(stamps.count == readings.count, "every Dexcom reading carries its dex time")
        #expect(Set(stamps).count == stamps.count, "a reading delivered twice: \(stamps)")
        // The first session backfills; then one live reading per 5 minutes: 4 in 20 minutes.
        let live = readings.filter { reading in
            guard case let .monotonic(at) = reading.time else { return false }
            return at >= world.now - .seconds(20 * 60 - 60)
        }
        #expect((3...5).contains(live.count), "live readings: \(live.count)")
        let connections = world.events.filter { if case .connecting = $0 { true } else { false } }.count
        // Two sessions per reading at most (one just before it is due, one just after), where an
        // unpaced appliance made hundreds.
        #expect((4...9).contains(connections), "\(connections) connections in 20 min")
        #expect(world.appliance.deviceStates.first?.1 == "waiting for the next reading" || world.appliance.deviceStates.first?.1 == "searching"
                || world.appliance.deviceStates.first?.1.hasPrefix("connect") == true)
    }

    /// Someone else's Dexcom nearby, with the same last two characters (the name Vigil looks
    /// for): it refuses every session with the ID mismatch, and is asked ever more slowly, not
    /// every second (back-off 1, 2, 4, ... s).
    @Test("a transmitter that refuses is retried with a growing back-off, not hammered")
    func aRefusingTransmitterBacksOff() throws {
        var sim = SimulatedDexcom(id: try Dexcom.TransmitterID("8134AB"), cycle: .seconds(1))
        let driver = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "dexcom", device: "g6", options: ["transmitter-id": "8112AB"]))
        var world = ApplianceWorld(devices: [Appliance.Device(driver: driver)], peripherals: [sim.makePeripheral()])
        sim.service(&world.controller.radio, at: world.now)
        world.dexcom = sim
        world.start()
        world.advance(by: .seconds(60))
        let mismatches = world.transmitterEvents { if case .incompatible(let reason) = $0 { reason.contains("mismatch") } else { false } }
        let connections = world.events.filter { if case .connecting = $0 { true } else { false } }.count
        #expect(mismatches >= 3, "mismatches: \(mismatches)")
        #expect(connections <= 8, "\(connections) connections in a minute to a transmitter that is not ours")
        #expect(world.readings.isEmpty)
        // Connected and discovered, but never proven ours: not remembered, so our own
        // transmitter can still be found when it comes in range.
        #expect(world.appliance.remembered.address(for: "g6") == nil)
        #expect(!world.events.contains { if case .rememberedAddress = $0 { true } else { false } })
    }

    @Test("a dead controller is reported as Bluetooth unavailable")
    func deadController() throws {
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate()], peripherals: [SimulatedDevices.heartRateMonitor()])
        world.controller.isDead = true
        world.start()
        world.advance(by: .seconds(10))
        #expect(world.events.contains { if case .bluetooth(.unavailable) = $0 { true } else { false } })
    }

    @Test("a bond the strap forgot is replaced by pairing afresh, once")
    func bondLost() throws {
        var bonds = SMP.BondStore()
        bonds.insert(SMP.Bond(peer: ApplianceWorld.hrmAddress, longTermKey: Array(repeating: 0x42, count: 16), ediv: 0, rand: 0,
                              keySize: 16, secureConnections: true, authenticated: false),
                     created: WallClockTime(secondsSinceEpoch: 1_700_000_000))
        let hrm = SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: SMPPeripheralSecurity.factory())
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate(pair: true)], peripherals: [hrm], bonds: bonds)
        world.start()
        world.advance(by: .seconds(15))
        #expect(world.hostEvents.contains { if case .encryptionFailed(_, _, true) = $0 { true } else { false } }
                || world.hostEvents.contains { if case .disconnected(_, _, .terminatedMICFailure) = $0 { true } else { false } })
        #expect(world.events.contains { if case .paired = $0 { true } else { false } })
        #expect(world.readings.count >= 3)
        #expect(world.host.bonds.bond(for: ApplianceWorld.hrmAddress)?.longTermKey != Array(repeating: 0x42, count: 16))
    }

    /// Found by the hostile-peer interop rig (`hostile_peers.py --scenario pairing-failures`):
    /// a peer that refuses pairing is never discovered, so never
    /// remembered; the scanner reports its unchanged advertisement only for watched peers,
    /// and the slot waited for it forever. It must be retried, with backoff.
    @Test("a strap that refuses pairing is reported each time and retried with backoff")
    func pairingRefusedIsRetried() throws {
        let hrm = SimulatedDevices.heartRateMonitor(requiresEncryption: true, securityFactory: { _, _ in RefusingSecurity() })
        var world = ApplianceWorld(devices: [try ApplianceWorld.heartRate(pair: true)], peripherals: [hrm])
        world.start()
        world.advance(by: .seconds(20))
        let failures = world.transmitterEvents { if case .pairingFailed = $0 { true } else { false } }
        let connections = world.events.filter { if case .connecting = $0 { true } else { false } }.count
        // Backoff 1, 2, 4, 8 s between attempts: four or five attempts in 20 s, not one, and not
        // one a second either.
        #expect((3...6).contains(failures), "pairing failures: \(failures)")
        #expect(connections == failures, "connection attempts \(connections) vs failures \(failures)")
        #expect(world.readings.isEmpty)
    }

    /// A strap whose measurement characteristic never changes, so no notification ever comes.
    static func quietStrap() -> SimulatedPeripheral {
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)
        ad.uuids16([0x180D])
        return SimulatedPeripheral(
            address: ApplianceWorld.hrmAddress,
            advertising: AdvertisingConfiguration(kind: .connectable, interval: .milliseconds(100), data: ad.bytes),
            services: [SimulatedService(0x180D, characteristics: [SimulatedCharacteristic(0x2A37, properties: .notify)])])
    }
}

/// A peripheral Security Manager that answers every Pairing Request with Pairing Failed,
/// reason 0x05 Pairing Not Supported (Core v5.4 Vol 3 Part H §3.5.5).
struct RefusingSecurity: PeripheralSecurity {
    mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] {
        pdu.first == SMP.Code.pairingRequest.rawValue ? [.send([0x05, 0x05]), .failed(reason: 0x05)] : []
    }
    mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? { nil }
    mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    var nextDeadline: MonotonicInstant? { nil }
    mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
}
