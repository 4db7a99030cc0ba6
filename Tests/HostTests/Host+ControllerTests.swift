import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// Controller bring-up, HCI command flow control and malformed HCI input, against the
/// simulated controller (Core v5.4 Vol 4 Part E §4.4, §7).
@Suite struct HostControllerTests {
    /// Vigil's bring-up order (Host+Controller.swift `BringUpStep`), each answered before the next.
    static let bringUp: [HCI.Opcode] = [
        // Scan Enable(off) right after Reset: Bumble's Reset is a no-op that leaves a scan running.
        HCI.Reset.opcode, HCI.LESetScanEnable.opcode, HCI.ReadLocalVersionInformation.opcode, HCI.WriteLEHostSupport.opcode,
        HCI.SetEventMask.opcode, HCI.LESetEventMask.opcode, HCI.LEReadBufferSize.opcode,
        HCI.LEReadLocalSupportedFeatures.opcode, HCI.ReadBDADDR.opcode, HCI.LESetRandomAddress.opcode,
    ]

    @Test func bringUpSendsTheExactSequenceAndReportsTheControllerInfo() {
        var configuration = SimulatedController.Configuration()
        configuration.publicAddress = Address(value: 0x00_1B_DC_07_51_0A)
        configuration.leACLDataPacketLength = 251
        configuration.totalNumLEACLDataPackets = 6
        configuration.leFeatures = 0x0000_0000_0000_1001
        var world = SimulatedWorld(controller: configuration)
        world.start()

        #expect(world.sentCommands.map(\.opcode) == Self.bringUp)
        let info = world.controllerReady
        #expect(info?.publicAddress == Address(value: 0x00_1B_DC_07_51_0A))
        // The host forces the two top bits of a random static address (Vol 6 Part B §1.3.2.1).
        #expect(info?.staticAddress == Address(value: 0xC0_12_34_56_78_9A))
        #expect(info?.hciVersion == 0x0D)
        #expect(info?.manufacturer == 0xFFFF)
        #expect(info?.leFeatures == 0x1001)
        #expect(info?.aclPacketLength == 251)
        #expect(info?.aclPackets == 6)
        #expect(world.host.isReady)
        #expect(world.host.controllerInfo == info)
        // The controller now uses the host's random static address.
        #expect(world.controller.randomAddress == Address(value: 0xC0_12_34_56_78_9A))
        // Bring-up takes no virtual time: every command is answered at once.
        #expect(world.now == .zero)
        world.expectHealthy()
    }

    @Test func theEventMasksUnmaskEveryEventTheHostHandles() throws {
        var world = SimulatedWorld()
        world.start()
        let mask = try #require(world.sentCommands(HCI.SetEventMask.self).last).mask
        // Set Event Mask bits (§7.3.1): bit n is event code n + 1.
        for (bit, event) in [(4, "Disconnection Complete"), (7, "Encryption Change"), (15, "Hardware Error"),
                             (47, "Encryption Key Refresh Complete"), (61, "LE Meta")] {
            #expect(mask & (1 << UInt64(bit)) != 0, "\(event)")
        }
        let le = try #require(world.sentCommands(HCI.LESetEventMask.self).last).mask
        // LE Set Event Mask bits (§7.8.1): bit n is subevent n + 1.
        for (bit, event) in [(0, "Connection Complete"), (1, "Advertising Report"), (2, "Connection Update Complete"),
                             (4, "Long Term Key Request"), (12, "Extended Advertising Report")] {
            #expect(le & (1 << UInt64(bit)) != 0, "\(event)")
        }
        // And the simulated controller took them.
        #expect(world.controller.eventMask == mask)
        #expect(world.controller.leEventMask == le)
        // LE Supported (Host) = 1, Simultaneous LE Host = 0 (§7.3.79).
        #expect(world.sentCommands.first { $0.opcode == HCI.WriteLEHostSupport.opcode }?.parameters == [0x01, 0x00])
    }

    @Test func theRemoteConnectionParameterRequestEventStaysMasked() throws {
        // The host has no reply for LE Remote Connection Parameter Request (§7.7.65.6 wants
        // HCI_LE_Remote_Connection_Parameter_Request_Reply or its negative reply). Unmasked and
        // unanswered, the peer's LL procedure would time out and drop the link; masked, the
        // controller rejects it and the peer falls back to the L2CAP request we do answer.
        var world = SimulatedWorld()
        world.start()
        let le = try #require(world.sentCommands(HCI.LESetEventMask.self).last).mask
        #expect(le & (1 << 5) == 0)
    }

    @Test func leBufferSizeZeroFallsBackToReadBufferSize() {
        var configuration = SimulatedController.Configuration()
        configuration.leACLDataPacketLength = 0
        configuration.totalNumLEACLDataPackets = 0
        configuration.aclDataPacketLength = 64
        configuration.totalNumACLDataPackets = 3
        var world = SimulatedWorld(controller: configuration)
        world.start()

        var expected = Self.bringUp
        expected.insert(HCI.ReadBufferSize.opcode, at: 7)  // right after LE Read Buffer Size (§7.8.2)
        #expect(world.sentCommands.map(\.opcode) == expected)
        #expect(world.controllerReady?.aclPacketLength == 64)
        #expect(world.controllerReady?.aclPackets == 3)
        world.expectHealthy()
    }

    @Test func aDeadControllerFailsAfterTheCommandTimeoutNotAHang() {
        var world = SimulatedWorld()
        world.controller.isDead = true
        world.start()

        #expect(world.controllerFailed != nil)
        #expect(world.controllerFailed?.contains("did not answer") == true)
        // Reset went out once; the failure comes exactly one command timeout (3 s) later.
        #expect(world.sentCommands.map(\.opcode) == [HCI.Reset.opcode])
        #expect(world.time(of: .controllerFailed(world.controllerFailed ?? "")) == .zero + .seconds(3))
        #expect(!world.host.isReady)
        #expect(world.logs.contains { $0.level == .error })
        // Nothing is left pending: the host does not keep waking up.
        #expect(world.host.nextDeadline == nil)
    }

    @Test func aControllerThatStopsMidwayFailsAtTheStepItStopped() {
        var world = SimulatedWorld()
        world.controller.unansweredOpcodes = [HCI.LEReadBufferSize.opcode]
        world.start()

        #expect(world.sentCommands.map(\.opcode) == Array(Self.bringUp.prefix(7)))
        #expect(world.controllerFailed?.contains("\(HCI.LEReadBufferSize.opcode)") == true)
        #expect(world.now == .zero + .seconds(3))
    }

    @Test func aRefusedBringUpCommandFailsTheController() {
        var world = SimulatedWorld()
        world.controller.unansweredOpcodes = [HCI.Reset.opcode]
        world.host.start(at: world.now)
        world.pump()
        // Command Complete (§7.7.14) for HCI_Reset 0x0C03 with status 0x03 Hardware Failure.
        world.controller.injectTowardHost([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x03])
        world.pump()
        #expect(world.controllerFailed?.contains("bring-up failed at reset") == true)
        #expect(!world.host.isReady)
        #expect(world.sentCommands.map(\.opcode) == [HCI.Reset.opcode])
    }

    @Test func restartingBringUpDropsConnectionsAndReportsReadyAgain() {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        world.startScanning(active: false)
        #expect(world.host.isScanning)
        world.host.start(at: world.now)
        world.pump()
        #expect(world.host.isReady)
        #expect(world.disconnection(handle) == .localHostTerminated)
        // What the owner asked for survives the restart: scanning resumes after bring-up.
        #expect(world.host.isScanning)
        #expect(world.controller.isScanning)
        #expect(world.events.filter { if case .controllerReady = $0 { true } else { false } }.count == 2)
        world.expectHealthy()
    }

    @Test func aControllerThatGrantsNoCreditsFailsInsteadOfStallingSilently() {
        // Num_HCI_Command_Packets = 0 in every answer: the host may send nothing more until the
        // controller grants a credit (§4.4), which this one never does.
        var configuration = SimulatedController.Configuration()
        configuration.commandCredits = 0
        var world = SimulatedWorld(controller: configuration)
        world.start()
        #expect(world.sentCommands.map(\.opcode) == [HCI.Reset.opcode])
        #expect(world.controllerFailed != nil)
        #expect(world.now == .zero + .seconds(3))
        world.expectHealthy()
    }

    @Test func anUnansweredOptionalCommandIsOnlyLogged() throws {
        var configuration = SimulatedController.Configuration()
        // Two credits, so the swallowed command does not leave the simulator's count at zero.
        configuration.commandCredits = 2
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()], controller: configuration)
        #expect(handle == 0x0040)
        world.controller.unansweredOpcodes = [HCI.LELongTermKeyRequestNegativeReply.opcode]
        // LE Long Term Key Request (§7.7.65.5): 3E len=13 sub=05 handle=0x0040 rand=8 bytes ediv=0x0000.
        world.controller.injectTowardHost([0x04, 0x3E, 0x0D, 0x05, 0x40, 0x00] + [UInt8](repeating: 0, count: 8) + [0x00, 0x00])
        world.pump()
        let reply = world.sentCommands.last
        #expect(reply?.opcode == HCI.LELongTermKeyRequestNegativeReply.opcode)
        #expect(reply?.parameters == [0x40, 0x00])

        world.advance(by: .seconds(4))
        #expect(world.controllerFailed == nil)
        #expect(world.logged("never answered", atLeast: .notice))
        // The host carries on: the link still works.
        let outcome1 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome1 == .value([0x01]))
        world.expectHealthy()
    }

    @Test(arguments: [UInt8(1), 2, 5])
    func commandCreditsAreRespectedThroughAWholeSession(credits: UInt8) {
        var configuration = SimulatedController.Configuration()
        configuration.commandCredits = credits
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()], controller: configuration)
        #expect(world.host.isReady)
        world.startScanning(active: true)
        world.advance(by: .milliseconds(250))
        world.stopScanning()
        let outcome2 = world.perform(.discoverDatabase, on: handle)
        #expect(outcome2 != nil)
        world.disconnect(handle)
        #expect(world.disconnection(handle) == .localHostTerminated)
        // The simulator drops and records any command sent without a credit (§4.4).
        world.expectHealthy()
    }

    @Test func aHardwareErrorFailsTheControllerAndDropsConnections() {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        // Hardware Error event (§7.7.16): 10 len=1 code=0x42.
        world.controller.injectTowardHost([0x04, 0x10, 0x01, 0x42])
        world.pump()
        #expect(world.controllerFailed == "controller reported hardware error 0x42")
        #expect(world.disconnection(handle) == .hardwareFailure)
        #expect(!world.host.isReady)
    }

    /// Malformed packets from the controller (hand-built; each names the rule it breaks).
    static let malformedPackets: [(name: String, bytes: [UInt8], log: String)] = [
        ("empty", [], "empty HCI packet"),
        ("unknown indicator", [0x07, 0x01, 0x02], "indicator 0x7"),
        ("event header only", [0x04, 0x0E], "malformed HCI event"),
        ("Command Complete length says 4, 2 follow", [0x04, 0x0E, 0x04, 0x01, 0x03], "malformed HCI event"),
        ("event longer than its length", [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00, 0xAA, 0xBB], "malformed HCI event"),
        ("LE meta with unknown report type", [0x04, 0x3E, 0x0C, 0x02, 0x01, 0x09, 0x00, 1, 2, 3, 4, 5, 6, 0x00, 0xC4], "malformed HCI event"),
        ("ACL header only", [0x02, 0x40, 0x20], "malformed ACL"),
        ("ACL length says 10, 2 follow", [0x02, 0x40, 0x20, 0x0A, 0x00, 0x01, 0x02], "malformed ACL"),
        ("oversized garbage", [0x04, 0xFF, 0xFF] + [UInt8](repeating: 0xA5, count: 300), "malformed HCI event"),
    ]

    @Test(arguments: malformedPackets.indices)
    func malformedHCIPacketsAreLoggedAndTheLinkCarriesOn(index: Int) {
        let (name, bytes, log) = Self.malformedPackets[index]
        var (world, first) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor(address: HRM.address(1)),
                                                            SimulatedDevices.heartRateMonitor(address: HRM.address(2))])
        let connected = world.connect(HRM.address(2))
        let second = connected ?? 0xFFFF
        let before = world.events.count
        world.controller.injectTowardHost(bytes)
        world.pump()
        let newLogs = world.events[before...].compactMap { if case let .log(level, m) = $0 { (level, m) } else { nil } }
        #expect(newLogs.contains { $0.0 >= .warning && $0.1.contains(log) }, "\(name): \(newLogs)")
        #expect(world.controllerFailed == nil, "\(name)")
        // Both links carry on.
        for handle in [first, second] {
            let outcome = world.perform(.read(handle: HRM.modelNumber), on: handle)
            #expect(outcome == .value(Array("HRM-1".utf8)), "\(name)")
        }
        #expect(world.events[before...].allSatisfy { if case .disconnected = $0 { false } else { true } }, "\(name)")
        world.expectHealthy()
    }
}
