import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// Connection set-up and loss against the simulated controller: LE Create Connection and its
/// cancel (Core v5.4 Vol 4 Part E §7.8.12–13), supervision timeout, several links at once.
@Suite struct HostConnectionsTests {
    @Test func connectingReportsTheHandleAndExchangesTheMTU() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        let outcome1 = world.connect(HRM.address)
        let handle = try #require(outcome1)
        #expect(handle == 0x0040)
        #expect(world.host.connectedPeers == [0x0040: HRM.address])
        // The HRM advertises at t = 0, 100 ms, …: the initiator hears the first event at once.
        #expect(world.time(of: .connected(handle: handle, peer: HRM.address)) == .zero)
        // Vigil offers 247, the simulated server 247 (Vol 3 Part F §3.4.2).
        #expect(world.events.contains(.mtuExchanged(handle: handle, mtu: 247)))
        #expect(world.host.mtu(of: handle) == 247)
        #expect(world.peripheral(HRM.address)?.attMTU == 247)
        let create = try #require(world.sentCommands(HCI.LECreateConnection.self).last)
        #expect(create.peer == HRM.address)
        #expect(create.ownAddressType == .random)
        #expect(world.peripheral(HRM.address)?.events.first == .connected(central: DeviceAddress(Address(value: 0xC0_12_34_56_78_9A), type: .random)))
        #expect(!world.host.isConnecting)
        world.expectHealthy()
    }

    @Test func aPeerThatNeverAdvertisesTimesOutWithACancel() throws {
        var world = SimulatedWorld()
        world.start()
        let ghost = HRM.address(0x99)
        world.host.connect(ghost, at: world.now)
        world.pump()
        #expect(world.host.isConnecting)
        world.run(until: { $0.connectionFailure(ghost) != nil }, within: .seconds(60))
        // 15 s connect timeout, then LE Create Connection Cancel, answered at once by the
        // simulator with LE Connection Complete "Unknown Connection Identifier" (§7.8.13).
        #expect(world.sentCommands.last?.opcode == HCI.LECreateConnectionCancel.opcode)
        #expect(world.connectionFailure(ghost) == "connection attempt cancelled after timeout")
        #expect(world.time(of: .connectionFailed(peer: ghost, reason: "connection attempt cancelled after timeout")) == .zero + .seconds(15))
        #expect(!world.host.isConnecting)
        #expect(!world.controller.isConnecting)
        #expect(world.logged("cancelling", atLeast: .notice))
        world.expectHealthy()
    }

    @Test func theOwnerCanCancelAPendingConnection() {
        var world = SimulatedWorld()
        world.start()
        let ghost = HRM.address(0x98)
        world.host.connect(ghost, at: world.now)
        world.pump()
        world.advance(by: .seconds(1))
        world.host.cancelConnect(ghost, at: world.now)
        world.pump()
        #expect(world.connectionFailure(ghost) != nil)
        #expect(world.time(of: .connectionFailed(peer: ghost, reason: world.connectionFailure(ghost) ?? "")) == .zero + .seconds(1))
        #expect(!world.host.isConnecting)
        world.expectHealthy()
    }

    @Test func aCancelThatTheControllerNeverAnswersStillEndsTheAttempt() {
        var world = SimulatedWorld()
        world.start()
        world.controller.unansweredOpcodes = [HCI.LECreateConnectionCancel.opcode]
        let ghost = HRM.address(0x97)
        world.host.connect(ghost, at: world.now)
        world.pump()
        world.run(until: { $0.connectionFailure(ghost) != nil }, within: .seconds(60))
        // 15 s, then the 2 s cancel timeout: the owner hears of it rather than waiting forever.
        #expect(world.connectionFailure(ghost) == "connection attempt timed out")
        #expect(world.now == .zero + .seconds(17))
        // The unanswered critical command then fails the controller, which a reset recovers.
        world.advance(by: .seconds(5))
        #expect(world.controllerFailed != nil)
    }

    @Test func aConnectionThatCompletesAsTheCancelGoesOutIsKept() throws {
        // The advertiser's next event (100 ms) and our connect deadline (1 ms + 99 ms) coincide:
        // LE Connection Complete and our LE Create Connection Cancel cross (§7.8.13: the cancel
        // then answers Command Disallowed).
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()]) { $0.connectTimeout = .milliseconds(99) }
        world.start()
        world.advance(by: .milliseconds(1))
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        world.advance(by: .milliseconds(99))
        #expect(world.sentCommands.last?.opcode == HCI.LECreateConnectionCancel.opcode)
        let handle = try #require(world.connectedHandle(HRM.address))
        #expect(world.connectionFailure(HRM.address) == nil)
        #expect(!world.host.isConnecting)
        // No stale cancel deadline fires later, and the link works.
        world.advance(by: .seconds(5))
        #expect(world.connectionFailure(HRM.address) == nil)
        #expect(world.host.handle(for: HRM.address) == handle)
        let outcome = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome == .value([0x01]))
        world.expectHealthy()
    }

    @Test func aConnectionTheControllerRefusesFailsAndTheQueueMovesOn() throws {
        var configuration = SimulatedController.Configuration()
        configuration.maximumConnections = 1
        let peers = (1...3).map { HRM.address(UInt64($0)) }
        var world = SimulatedWorld(controller: configuration, peripherals: peers.map { SimulatedDevices.heartRateMonitor(address: $0) })
        world.start()
        for peer in peers { world.host.connect(peer, at: world.now) }
        world.pump()
        world.run(until: { w in peers.allSatisfy { w.host.handle(for: $0) != nil || w.connectionFailure($0) != nil } }, within: .seconds(5))
        #expect(world.host.handle(for: peers[0]) == 0x0040)
        // Command Status "Connection Limit Exceeded" (0x09) for the others, each reported.
        for peer in peers.dropFirst() {
            #expect(world.connectionFailure(peer)?.contains("refused LE Create Connection") == true)
        }
        #expect(!world.host.isConnecting)
        world.expectHealthy()
    }

    @Test func connectionsQueueAndSeveralStayOpenAtOnce() throws {
        let peers = (1...3).map { HRM.address(UInt64($0)) }
        var world = SimulatedWorld(peripherals: peers.map { SimulatedDevices.heartRateMonitor(address: $0) })
        world.start()
        for peer in peers { world.host.connect(peer, at: world.now) }
        world.pump()
        world.run(until: { w in peers.allSatisfy { w.host.handle(for: $0) != nil } }, within: .seconds(5))
        let handles = peers.compactMap { world.host.handle(for: $0) }
        #expect(handles == [0x0040, 0x0041, 0x0042])
        // One LE Create Connection at a time (§7.8.12).
        #expect(world.sentCommands(HCI.LECreateConnection.self).map(\.peer) == peers)
        // Reads on all three interleave and each answers with its own serial number (0x2A25).
        let ids = handles.map { world.gatt(.read(handle: HRM.serialNumber), on: $0) }
        world.advance(by: .milliseconds(10))
        for (i, id) in ids.enumerated() {
            #expect(world.result(of: id) == .value(Array(String(peers[i].address.value, radix: 16).utf8)))
        }
        world.expectHealthy()
    }

    @Test func aSupervisionTimeoutFailsPendingOperationsWithDisconnected() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        // A peer that has gone quiet: requests are in flight when the link drops.
        world.controller.radio[HRM.address.address]?.hostileATT.ignoresRequests = true
        let running = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        let queued = world.gatt(.write(handle: HRM.controlPoint, value: [0x01]), on: handle)
        world.advance(by: .seconds(2))
        let now = world.now
        world.controller.dropConnection(handle: handle, reason: .connectionTimeout, at: now)
        world.pump()
        #expect(world.result(of: running) == .failed(.disconnected))
        #expect(world.result(of: queued) == .failed(.disconnected))
        #expect(world.disconnection(handle) == .connectionTimeout)
        #expect(world.host.connectedPeers.isEmpty)
        // Asking again on the dead handle answers at once, never hangs.
        let late = world.gatt(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(world.result(of: late) == .failed(.disconnected))
        // No ATT timeout fires later for the dropped link.
        world.advance(by: .seconds(60))
        #expect(world.resultCount(of: running) == 1)
        world.expectHealthy()
    }

    @Test func aVanishedPeerIsLostAfterTheSupervisionTimeout() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let start = world.now
        let now = world.now
        world.controller.vanish(HRM.address.address, at: now)
        world.pump()
        world.run(until: { $0.disconnection(handle) != nil }, within: .seconds(10))
        #expect(world.disconnection(handle) == .connectionTimeout)
        // Vigil asks for a 4 s supervision timeout (400 × 10 ms, HCI.ConnectionParameters default).
        #expect(world.now == start + .seconds(4))
        world.expectHealthy()
    }

    @Test func disconnectingMidDiscoveryFailsTheDiscovery() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let before = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        let id = world.host.gatt(.discoverDatabase, on: handle, at: world.now)
        // The simulated link answers instantly, so step the exchange by hand: a few round trips in.
        for _ in 0..<6 { world.exchange() }
        let during = world.peripheral(HRM.address)?.attRequestsReceived ?? 0
        #expect(during > before)
        #expect(world.result(of: id) == nil)
        world.disconnect(handle)
        #expect(world.result(of: id) == .failed(.disconnected))
        #expect(world.resultCount(of: id) == 1)
        #expect(world.disconnection(handle) == .localHostTerminated)
        #expect(world.peripheral(HRM.address)?.isConnected == false)
        world.expectHealthy()
    }

    @Test func aRefusedDisconnectLeavesTheLinkUsable() throws {
        var configuration = SimulatedController.Configuration()
        configuration.commandCredits = 2  // the swallowed Disconnect must not strand the simulator's count
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()], controller: configuration)
        world.controller.unansweredOpcodes = [HCI.Disconnect.opcode]
        world.disconnect(handle)
        // Command Status (§7.7.15): status 0x0C Command Disallowed, 1 credit, opcode 0x0406.
        world.controller.injectTowardHost([0x04, 0x0F, 0x04, 0x0C, 0x01, 0x06, 0x04])
        world.pump()
        #expect(world.logged("Disconnect 0x40 failed", atLeast: .warning))
        #expect(world.disconnection(handle) == nil)
        // The link is still up, so it must still carry ATT, and a later disconnect must go out.
        world.controller.unansweredOpcodes = []
        let outcome = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome == .value([0x01]))
        world.disconnect(handle)
        #expect(world.disconnection(handle) == .localHostTerminated)
        world.expectHealthy()
    }

    @Test func theHostReconnectsToAPeerAfterALoss() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let now = world.now
        world.controller.dropConnection(handle: handle, at: now)
        world.pump()
        #expect(world.disconnection(handle) == .connectionTimeout)
        let outcome2 = world.connect(HRM.address)
        let again = try #require(outcome2)
        #expect(again == 0x0041)
        let outcome3 = world.perform(.read(handle: HRM.bodySensorLocation), on: again)
        #expect(outcome3 == .value([0x01]))
        world.expectHealthy()
    }
}
