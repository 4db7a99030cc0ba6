import Bluetooth
import Clocks
import HCI
import SMP
import Simulator
import Testing
@testable import Host

/// Pairing, bonding and re-encryption against simulated peripherals running the real SMP
/// responder (`SMPPeripheralSecurity`, Core v5.4 Vol 3 Part H).
@Suite struct HostSecurityTests {
    static func monitor(secureConnections: Bool, requiresEncryption: Bool = false) -> SimulatedPeripheral {
        SimulatedDevices.heartRateMonitor(
            requiresEncryption: requiresEncryption,
            securityFactory: SMPPeripheralSecurity.factory(configuration: SMP.Configuration(secureConnections: secureConnections)))
    }

    /// Pairs on a fresh connection and returns the world, handle and bond.
    static func paired(secureConnections: Bool, requiresEncryption: Bool = false) -> (SimulatedWorld, UInt16, SMP.Bond?) {
        var (world, handle) = SimulatedWorld.connected(to: [monitor(secureConnections: secureConnections, requiresEncryption: requiresEncryption)])
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil || $0.pairingFailure(handle) != nil }, within: .seconds(40))
        return (world, handle, world.pairedBond(handle))
    }

    @Test func secureConnectionsPairingBondsAndEncrypts() throws {
        let (world, handle, bond) = Self.paired(secureConnections: true)
        let b = try #require(bond)
        #expect(b.secureConnections)
        #expect(!b.authenticated)  // Just Works
        #expect(b.peer == HRM.address)
        // SC keys are used with EDIV 0 and Rand 0 (Vol 3 Part H §2.4.4.1).
        #expect(b.ediv == 0)
        #expect(b.rand == 0)
        #expect(b.longTermKey.count == 16)
        #expect(b.keySize == 16)
        // Encryption during pairing is reported once the bond exists, so it says bonded.
        #expect(world.events.contains(.encryptionChanged(handle: handle, enabled: true, bonded: true)))
        #expect(!world.events.contains(.encryptionChanged(handle: handle, enabled: true, bonded: false)))
        #expect(world.host.isEncrypted(handle))
        #expect(world.host.bonds.bond(for: HRM.address) != nil)
        let peripheral = try #require(world.peripheral(HRM.address))
        #expect(peripheral.isEncrypted)
        #expect(peripheral.events.contains(.paired(ediv: 0, rand: 0)))
        // Pairing Request first (code 0x01) with the SC and bonding bits in AuthReq (§3.5.1).
        let request = try #require(world.sentSMP(on: handle).first)
        #expect(request.first == 0x01)
        #expect(request.count == 7)
        #expect(request[3] & 0x08 != 0)
        #expect(request[3] & 0x03 == 0x01)
        // The LTK the controller was given is the bond's.
        let encrypt = try #require(world.sentCommands(HCI.LEEnableEncryption.self).last)
        #expect(encrypt.longTermKey == b.longTermKey)
        #expect(encrypt.ediv == 0)
        #expect(encrypt.random == 0)
        world.expectHealthy()
    }

    @Test func legacyPairingBondsWithTheDistributedEDIVAndRand() throws {
        let (world, handle, bond) = Self.paired(secureConnections: false)
        let b = try #require(bond)
        #expect(!b.secureConnections)
        // The responder distributed its LTK with EDIV and Rand (Vol 3 Part H §3.6.2–3.6.3).
        let distributed = try #require(world.peripheral(HRM.address)?.events.compactMap {
            if case let .paired(ediv, rand) = $0 { (ediv, rand) } else { nil }
        }.first)
        #expect(b.ediv == distributed.0)
        #expect(b.rand == distributed.1)
        #expect(b.ediv != 0 || b.rand != 0)
        #expect(world.host.isEncrypted(handle))
        // The request still offered SC; the responder declined it.
        #expect(((world.sentSMP(on: handle).first?[3] ?? 0) & 0x08) != 0)
        world.expectHealthy()
    }

    @Test(arguments: [true, false])
    func reconnectingReEncryptsFromTheBondWithoutPairing(secureConnections: Bool) throws {
        var (world, handle, bond) = Self.paired(secureConnections: secureConnections)
        let b = try #require(bond)
        world.disconnect(handle)
        #expect(world.disconnection(handle) == .localHostTerminated)
        let outcome1 = world.connect(HRM.address)
        let again = try #require(outcome1)
        #expect(again != handle)
        world.secure(again)
        world.run(until: { $0.host.isEncrypted(again) || $0.encryptionFailure(again) != nil }, within: .seconds(5))
        #expect(world.events.contains(.encryptionChanged(handle: again, enabled: true, bonded: true)))
        // Not a single SMP PDU on the new link: no Pairing Request went out.
        #expect(world.sentSMP(on: again).isEmpty)
        let encrypt = try #require(world.sentCommands(HCI.LEEnableEncryption.self).last)
        #expect(encrypt.handle == again)
        #expect(encrypt.longTermKey == b.longTermKey)
        #expect(encrypt.ediv == b.ediv)
        #expect(encrypt.random == b.rand)
        #expect(world.peripheral(HRM.address)?.isEncrypted == true)
        #expect(!world.events.contains { if case .paired(again, _) = $0 { true } else { false } })
        world.expectHealthy()
    }

    @Test(arguments: [true, false])
    func aPeerThatForgotTheBondIsReported(secureConnections: Bool) throws {
        var (world, handle, bond) = Self.paired(secureConnections: secureConnections)
        _ = try #require(bond)
        world.disconnect(handle)
        // A factory reset: a new peripheral at the same address, with no keys.
        world.controller.radio[HRM.address.address] = Self.monitor(secureConnections: secureConnections)
        let outcome2 = world.connect(HRM.address)
        let again = try #require(outcome2)
        world.secure(again)
        world.run(until: { $0.encryptionFailure(again) != nil }, within: .seconds(5))
        // The peer's link layer answers LL_REJECT_EXT_IND PIN or Key Missing (0x06).
        #expect(world.events.contains(.encryptionFailed(handle: again, reason: "\(HCI.Status.pinOrKeyMissing)", bondRejected: true)))
        #expect(!world.host.isEncrypted(again))
        #expect(world.sentSMP(on: again).isEmpty)
        // Re-pairing on purpose works and replaces the bond.
        world.host.pair(handle: again, at: world.now)
        world.pump()
        world.run(until: { $0.pairedBond(again) != nil }, within: .seconds(40))
        #expect(world.pairedBond(again) != nil)
        #expect(world.host.isEncrypted(again))
        world.expectHealthy()
    }

    @Test func pairingAgainOnAnEncryptedLinkRefreshesTheKey() throws {
        var (world, handle, bond) = Self.paired(secureConnections: true)
        let first = try #require(bond)
        world.host.pair(handle: handle, at: world.now)
        world.pump()
        world.run(until: { w in w.events.filter { if case .paired(handle, _) = $0 { true } else { false } }.count == 2 }, within: .seconds(40))
        let bonds = world.events.compactMap { if case let .paired(h, b) = $0, h == handle { b } else { nil } }
        #expect(bonds.count == 2)
        #expect(bonds.last?.longTermKey != first.longTermKey)
        // Starting encryption on an encrypted link is a key refresh (§7.7.39), still encrypted.
        #expect(world.host.isEncrypted(handle))
        #expect(world.host.bonds.bond(for: HRM.address)?.longTermKey == bonds.last?.longTermKey)
        world.expectHealthy()
    }

    @Test func anEncryptedCharacteristicAnswersInsufficientAuthenticationUntilSecured() throws {
        var (world, handle) = SimulatedWorld.connected(to: [Self.monitor(secureConnections: true, requiresEncryption: true)])
        let refused = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
        #expect(refused == .failed(.attributeError(.insufficientAuthentication, handle: HRM.heartRateCCCD)))
        if case .failed(let failure) = refused { #expect(failure.needsSecurity) }
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil }, within: .seconds(40))
        let outcome3 = world.perform(.write(handle: HRM.heartRateCCCD, value: [0x01, 0x00]), on: handle)
        #expect(outcome3 == .written)
        world.advance(by: .milliseconds(2500))
        #expect(world.notifications(on: handle).count == 2)
        world.expectHealthy()
    }

    @Test func theDatabaseOfABondedPeerIsCachedAcrossConnections() throws {
        var (world, handle, _) = Self.paired(secureConnections: true)
        let outcome4 = world.perform(.discoverDatabase, on: handle)
        #expect(outcome4 == .database(GATTProcedureTests.expectedHRMDatabase))
        world.disconnect(handle)
        let outcome5 = world.connect(HRM.address)
        let again = try #require(outcome5)
        let requests = world.peripheral(HRM.address)?.attRequestsReceived ?? -1
        let outcome6 = world.perform(.discoverDatabase, on: again)
        #expect(outcome6 == .database(GATTProcedureTests.expectedHRMDatabase))
        // No discovery traffic: the server saw nothing beyond the MTU exchange.
        #expect(world.peripheral(HRM.address)?.attRequestsReceived == requests)
        #expect(requests == 1)
        #expect(world.logged("from the bond cache"))
        #expect(world.host.database(of: again) == GATTProcedureTests.expectedHRMDatabase)
        // Forgetting the bond forgets the cache.
        world.host.forgetBond(HRM.address)
        let outcome7 = world.perform(.discoverDatabase, on: again)
        #expect(outcome7 == .database(GATTProcedureTests.expectedHRMDatabase))
        #expect((world.peripheral(HRM.address)?.attRequestsReceived ?? 0) > requests)
        world.expectHealthy()
    }

    @Test func databaseOutOfSyncDropsTheCachedDatabase() throws {
        // A bonded peer whose database changed: its writes answer 0x12 Database Out Of Sync
        // (Vol 3 Part F §3.4.1.1), so the cache must not be trusted on the next connection.
        let changed = SimulatedPeripheral(
            address: HRM.address, advertising: AdvertisingConfiguration(data: [0x02, 0x01, 0x06]),
            services: [SimulatedService(0xFFF0, characteristics: [
                SimulatedCharacteristic(0xFFF1, properties: .write, writeHandler: { _ in 0x12 }),
            ])],
            securityFactory: SMPPeripheralSecurity.factory())
        var (world, handle) = SimulatedWorld.connected(to: [changed])
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil }, within: .seconds(40))
        let database = world.perform(.discoverDatabase, on: handle)
        guard case .database = database else { Issue.record("no database: \(String(describing: database))"); return }
        let refused = world.perform(.write(handle: 0x0003, value: [0x01]), on: handle)
        #expect(refused == .failed(.attributeError(.databaseOutOfSync, handle: 0x0003)))
        world.disconnect(handle)
        let reconnected = world.connect(HRM.address)
        let again = try #require(reconnected)
        let requests = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        let rediscovered = world.perform(.discoverDatabase, on: again)
        #expect(rediscovered == database)
        #expect((world.peripheral(HRM.address)?.attRequestsReceived ?? 0) > requests)
        #expect(!world.logged("from the bond cache"))
        world.expectHealthy()
    }

    static let identity = SMP.LocalIdentity(irk: (0..<16).map { UInt8(0xA0 + $0) },
                                            address: DeviceAddress(Address(value: 0x00_1B_DC_00_00_01), type: .public))

    @Test func aPeerThatDistributesItsIdentityIsBondedUnderItAndCanBeForgotten() throws {
        let monitor = SimulatedDevices.heartRateMonitor(
            securityFactory: SMPPeripheralSecurity.factory(configuration: SMP.Configuration(identity: Self.identity)))
        var (world, handle) = SimulatedWorld.connected(to: [monitor])
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil }, within: .seconds(40))
        let bond = try #require(world.pairedBond(handle))
        // Identity Information and Identity Address Information (Vol 3 Part H §3.6.4–3.6.5).
        #expect(bond.identityAddress == Self.identity.address)
        #expect(bond.identityResolvingKey == Self.identity.irk)
        #expect(bond.peer == HRM.address)
        #expect(world.host.bonds.bond(for: HRM.address) == world.host.bonds.bond(for: Self.identity.address))
        // The owner forgets the peer by the address it knows it by.
        world.host.forgetBond(HRM.address)
        #expect(world.host.bonds.bond(for: HRM.address) == nil)
        #expect(world.host.bonds.all.isEmpty)
        world.expectHealthy()
    }

    @Test func aPeripheralSecurityRequestWithoutABondStartsPairing() throws {
        var (world, handle) = SimulatedWorld.connected(to: [Self.monitor(secureConnections: true)])
        let now = world.now
        world.controller.radio[HRM.address.address]?.requestSecurity(at: now)
        world.pump()
        world.run(until: { $0.pairedBond(handle) != nil || $0.pairingFailure(handle) != nil }, within: .seconds(40))
        // Vol 3 Part H §2.4.6: the central answers a Security Request by pairing (or encrypting).
        #expect(world.pairedBond(handle) != nil)
        #expect(world.sentSMP(on: handle).first?.first == 0x01)
        #expect(world.host.isEncrypted(handle))
        world.expectHealthy()
    }

    @Test func aPeripheralSecurityRequestWithABondReEncrypts() throws {
        var (world, handle, _) = Self.paired(secureConnections: true)
        world.disconnect(handle)
        let outcome8 = world.connect(HRM.address)
        let again = try #require(outcome8)
        let now = world.now
        world.controller.radio[HRM.address.address]?.requestSecurity(at: now)
        world.pump()
        world.run(until: { $0.host.isEncrypted(again) }, within: .seconds(5))
        #expect(world.events.contains(.encryptionChanged(handle: again, enabled: true, bonded: true)))
        #expect(world.logged("peer asks for security"))
        // The Security Request was answered by encryption, not by a Pairing Request.
        #expect(world.sentSMP(on: again).isEmpty)
        world.expectHealthy()
    }

    @Test func aBondWithTheWrongKeyEndsInAMICFailureReportedAsRejected() throws {
        var (world, handle, bond) = Self.paired(secureConnections: true)
        var b = try #require(bond)
        world.disconnect(handle)
        // Our stored LTK no longer matches the peer's: encryption starts with different session
        // keys, the first encrypted PDU fails its MIC and the link drops with 0x3D (Vol 6 Part B §5.1.3.1).
        b.longTermKey[0] ^= 0xFF
        world.host.bonds.insert(b, created: WallClockTime(secondsSinceEpoch: 0))
        let reconnected = world.connect(HRM.address)
        let again = try #require(reconnected)
        world.secure(again)
        world.run(until: { $0.disconnection(again) != nil }, within: .seconds(5))
        #expect(world.disconnection(again) == .terminatedMICFailure)
        #expect(world.events.contains { if case .encryptionFailed(again, _, true) = $0 { true } else { false } })
        world.expectHealthy()
    }

    @Test func aPeripheralWithoutPairingSupportFailsThePairing() throws {
        // No security manager: the simulated peer answers Pairing Failed 0x05 "Pairing Not Supported".
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.secure(handle)
        world.run(until: { $0.pairingFailure(handle) != nil }, within: .seconds(5))
        let reason = try #require(world.pairingFailure(handle))
        #expect(reason.lowercased().contains("not supported"))
        #expect(!world.host.isEncrypted(handle))
        #expect(world.host.bonds.bond(for: HRM.address) == nil)
        #expect(world.logged("pairing failed", atLeast: .warning))
        world.expectHealthy()
    }

    /// A peripheral security manager that never says anything.
    struct SilentSecurity: PeripheralSecurity {
        mutating func receive(_ pdu: [UInt8], at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
        mutating func longTermKey(ediv: UInt16, rand: UInt64) -> [UInt8]? { nil }
        mutating func encryptionChanged(enabled: Bool, at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
        mutating func requestSecurity(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
        var nextDeadline: MonotonicInstant? { nil }
        mutating func handleDeadline(at now: MonotonicInstant) -> [PeripheralSecurityOutput] { [] }
    }

    @Test func aSilentPeerEndsPairingAtTheSMPTimeout() throws {
        let silent = SimulatedDevices.heartRateMonitor(securityFactory: { _, _ in SilentSecurity() })
        var (world, handle) = SimulatedWorld.connected(to: [silent])
        let asked = world.now
        world.secure(handle)
        world.run(until: { $0.pairingFailure(handle) != nil }, within: .seconds(60))
        #expect(world.pairingFailure(handle) != nil)
        // The Security Manager Timer (Vol 3 Part H §3.4): 30 s.
        #expect(world.now == asked + .seconds(30))
        // After an SMP timeout no further SMP PDU may be sent on this link (§3.4): asking
        // again fails at once.
        let sentBefore = world.sentSMP(on: handle).count
        world.secure(handle)
        world.advance(by: .seconds(1))
        #expect(world.sentSMP(on: handle).count == sentBefore)
        #expect(world.events.filter { if case .pairingFailed(handle, _) = $0 { true } else { false } }.count == 2)
        // GATT still works on the link.
        let outcome = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome == .value([0x01]))
        world.expectHealthy()
    }

    @Test func losingTheLinkMidPairingReportsThePairingFailed() throws {
        var (world, handle) = SimulatedWorld.connected(to: [Self.monitor(secureConnections: true)])
        world.host.secure(handle: handle, at: world.now)
        // Let the Pairing Request and Response cross, then cut the link.
        for _ in 0..<2 { world.exchange() }
        #expect(!world.sentSMP(on: handle).isEmpty)
        #expect(world.pairedBond(handle) == nil)
        let now = world.now
        world.controller.dropConnection(handle: handle, reason: .connectionTimeout, at: now)
        world.pump()
        #expect(world.pairingFailure(handle) == "disconnected during pairing")
        #expect(world.disconnection(handle) == .connectionTimeout)
        #expect(world.host.bonds.bond(for: HRM.address) == nil)
        // No SMP timer fires later for the dead link.
        world.advance(by: .seconds(40))
        #expect(world.events.filter { if case .pairingFailed = $0 { true } else { false } }.count == 1)
        // The host had already queued its next SMP PDU when the link dropped under it, before it
        // could hear of the drop: the controller discards that (the one violation allowed here).
        #expect(world.controller.violations.allSatisfy { $0 == .aclForUnknownHandle(handle) })
        #expect(!world.hung)
    }

    /// SMP payloads a broken or hostile peer might send (Vol 3 Part H §3.3 format).
    static let garbageSMP: [(name: String, pdu: [UInt8])] = [
        ("empty", []),
        ("unknown code", [0xFF, 0x00]),
        ("truncated Pairing Response", [0x02, 0x03]),
        ("Pairing Confirm out of sequence", [0x03] + [UInt8](repeating: 0xAB, count: 16)),
        ("Pairing Request to a central", [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]),
    ]

    @Test(arguments: garbageSMP.indices)
    func garbageSMPIsLoggedAndTheLinkCarriesOn(index: Int) throws {
        let (name, pdu) = Self.garbageSMP[index]
        var (world, handle) = SimulatedWorld.connected(to: [Self.monitor(secureConnections: true),
                                                             SimulatedDevices.heartRateMonitor(address: HRM.address(2))])
        let connected = world.connect(HRM.address(2))
        let other = try #require(connected)
        let before = world.events.count
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.securityManager, payload: pdu)
        world.pump()
        world.advance(by: .seconds(1))
        let logs = world.events[before...].compactMap { if case let .log(level, m) = $0 { (level, m) } else { nil } }
        #expect(logs.contains { $0.0 >= .notice && $0.1.contains("refused SMP PDU") }, "\(name): \(logs)")
        #expect(world.sentSMP(on: other).isEmpty, "\(name)")
        let untouched = world.perform(.read(handle: HRM.modelNumber), on: other)
        #expect(untouched == .value(Array("HRM-1".utf8)), "\(name)")
        // Answered with Pairing Failed (code 0x05), as Vol 3 Part H §3.5.5 asks.
        #expect(world.sentSMP(on: handle).last?.first == 0x05, "\(name)")
        #expect(world.host.connectedPeers[handle] == HRM.address, "\(name)")
        let outcome9 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome9 == .value([0x01]), "\(name)")
        // Pairing still works afterwards.
        world.secure(handle)
        world.run(until: { $0.pairedBond(handle) != nil }, within: .seconds(40))
        #expect(world.pairedBond(handle) != nil, "\(name)")
        world.expectHealthy()
    }
}

extension SimulatedWorld {
    func pairedBond(_ handle: UInt16) -> SMP.Bond? {
        for case let .paired(h, bond) in events where h == handle { return bond }
        return nil
    }

    func pairingFailure(_ handle: UInt16) -> String? {
        for case let .pairingFailed(h, reason) in events where h == handle { return reason }
        return nil
    }

    func encryptionFailure(_ handle: UInt16) -> String? {
        for case let .encryptionFailed(h, reason, _) in events where h == handle { return reason }
        return nil
    }
}
