import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// A controller that answers bring-up and then stops answering, on the simulated
/// controller and a virtual clock. Found through the real binary (FaultControllerInteropTests:
/// after the reopen the appliance never tried to connect again): when the controller failed
/// while LE Create Connection was in flight, the attempt was dropped without a word, and the
/// owner waited for it for ever.
@Suite struct HostControllerFaultTests {
    @Test func aControllerThatHangsAtLECreateConnectionFailsTheAttemptToo() throws {
        var world = SimulatedWorld()
        world.start()
        world.controller.unansweredOpcodes = [HCI.LECreateConnection.opcode]
        let peer = HRM.address(0x42)
        world.host.connect(peer, at: world.now)
        world.pump()
        #expect(world.host.isConnecting)
        let failedInTime = world.run(until: { $0.controllerFailed != nil }, within: .seconds(10))
        #expect(failedInTime)
        // Core v5.4 Vol 4 Part E §7.8.12: the Command Status never came; the 3 s command timeout.
        #expect(world.controllerFailed == "controller did not answer LE Create Connection (0x200d) within 3.0 seconds")
        #expect(world.time(of: .controllerFailed(world.controllerFailed ?? "")) == .zero + .seconds(3))
        #expect(world.connectionFailure(peer) == "controller failed")
        // The owner hears of the attempt first, then of the controller.
        let attempt = try #require(world.events.firstIndex(of: .connectionFailed(peer: peer, reason: "controller failed")))
        let controller = try #require(world.events.firstIndex(of: .controllerFailed(world.controllerFailed ?? "")))
        #expect(attempt < controller)
        #expect(!world.host.isConnecting)
    }

    /// Found by the `host` fuzz target (its reproducer is in Fuzz/corpus/host): with the
    /// controller already failed, events still arriving made a connection, and a command on it
    /// timed out at the same instant as a GATT request. The expired command "failed" the failed
    /// controller again, which does nothing, and `handleDeadline` returned before the GATT
    /// deadline: it stayed due, and an owner's poll loop would have spun on a zero timeout.
    @Test func everyDeadlineDueIsHandledEvenWhenAnExpiredCommandFailsAFailedController() throws {
        var world = SimulatedWorld()
        world.start()
        world.controller.unansweredOpcodes = [HCI.LECreateConnection.opcode]
        world.host.connect(HRM.address(0x42), at: world.now)
        world.pump()
        let failed = world.run(until: { $0.controllerFailed != nil }, within: .seconds(10))
        #expect(failed)
        var host = world.host
        var now = world.now
        _ = host.takeOutputs()
        // LE Connection Complete (Core v5.4 Vol 4 Part E §7.7.65.1), handle 0x0040, from a
        // controller the host has given up on.
        host.receive([0x04, 0x3E, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0xC6,
                      0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00], at: now)
        _ = host.gatt(.read(handle: 0x0003), on: 0x0040, at: now)
        let gattDeadline = now + .seconds(30)
        #expect(host.nextDeadline == gattDeadline)
        now = now + .seconds(27)
        host.disconnect(handle: 0x0040, at: now)
        _ = host.takeOutputs()
        #expect(host.nextDeadline == gattDeadline, "the Disconnect's 3 s ends with the GATT request's 30 s")
        host.handleDeadline(at: gattDeadline)
        #expect(host.nextDeadline.map { $0 > gattDeadline } ?? true, "still due: \(String(describing: host.nextDeadline))")
    }

    /// A ready host whose LE Set Scan Enable the controller never answers, and when it is due.
    static func hostWaitingForLESetScanEnable() throws -> (Host, MonotonicInstant) {
        var world = SimulatedWorld()
        world.start()
        world.controller.unansweredOpcodes = [HCI.LESetScanEnable.opcode]
        world.startScanning(active: false)
        var host = world.host
        _ = host.takeOutputs()
        return (host, try #require(host.nextDeadline))
    }

    /// A host behind on its input (a flood of notifications on a small board, or under
    /// qemu-user) must not call the controller lost while the answer it waits for may be in
    /// what it has not read: with input waiting, a due command waits, and the late Command
    /// Complete (Core v5.4 Vol 4 Part E §7.7.14) is taken as the answer.
    @Test func aCommandDueWhileInputIsWaitingWaitsForThatInput() throws {
        var (host, due) = try Self.hostWaitingForLESetScanEnable()
        host.handleDeadline(at: due + .seconds(5), inputWaiting: true)
        #expect(host.isReady)
        // Command Complete for LE Set Scan Enable (0x200C), status success, read at last.
        host.receive([0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], at: due + .seconds(6))
        host.handleDeadline(at: due + .seconds(6))
        #expect(host.isReady)
        #expect(host.isScanning)
        #expect(!host.takeOutputs().contains { if case .event(.controllerFailed) = $0 { true } else { false } })
    }

    /// The wait is bounded: input that never stops cannot hold a timeout back for ever.
    @Test func aCommandDueWhileInputKeepsComingFailsAfterTheBacklogAllowance() throws {
        var (host, due) = try Self.hostWaitingForLESetScanEnable()
        let allowance = host.configuration.backlogAllowance
        host.handleDeadline(at: due + allowance - .milliseconds(1), inputWaiting: true)
        #expect(host.isReady)
        host.handleDeadline(at: due + allowance, inputWaiting: true)
        #expect(!host.isReady)
        #expect(host.takeOutputs().contains {
            $0 == .event(.controllerFailed("controller did not answer LE Set Scan Enable (0x200c) within 3.0 seconds"))
        })
    }

    /// After a reopen the scanner reports every advertiser afresh: an unchanged advertisement
    /// from a peer seen before the controller failed must be heard again, or an owner that
    /// matches it by name never retries it (found with the real binary and Bumble).
    @Test func aRestartedControllerReportsKnownAdvertisersAgain() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.startScanning(active: false)
        world.advance(by: .seconds(1))
        func heard(since start: Int) -> Int {
            world.events[start...].filter { if case .advertisement(let a) = $0 { a.address == HRM.address } else { false } }.count
        }
        #expect(heard(since: 0) == 1, "once: later reports of unchanged data are duplicates")
        world.host.controllerLost("end of stream", at: world.now)
        world.controller = SimulatedController(configuration: .init(), radio: SimulatedRadio(peripherals: [SimulatedDevices.heartRateMonitor()]))
        let mark = world.events.count
        world.host.start(at: world.now)
        world.pump()
        let ready = world.run(until: { $0.host.isReady }, within: .seconds(10))
        #expect(ready)
        world.startScanning(active: false)
        world.advance(by: .seconds(1))
        #expect(heard(since: mark) == 1, "the peer was not reported after the controller restarted")
    }

    /// The same with a working controller: an attempt that times out (the peer did not answer
    /// in time) must not make its unchanged advertisements duplicates for ever.
    @Test func aPeerWhoseAttemptFailedIsReportedAgainWhenNextHeard() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()]) { $0.connectTimeout = .milliseconds(20) }
        world.start()
        world.startScanning(active: false)
        world.advance(by: .milliseconds(1))
        func heard() -> [MonotonicInstant] {
            world.timedEvents.compactMap { if case .advertisement(let a) = $0.event, a.address == HRM.address { $0.time } else { nil } }
        }
        #expect(heard() == [.zero], "heard at its first advertising event")
        // The attempt's deadline (1 ms + 20 ms) comes before the advertiser's next event (100 ms).
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        let failed = world.run(until: { $0.connectionFailure(HRM.address) != nil }, within: .seconds(5))
        #expect(failed)
        #expect(world.host.handle(for: HRM.address) == nil)
        world.advance(by: .milliseconds(500))
        #expect(heard().count >= 2, "not heard again after the failed attempt: \(heard())")
    }

    /// After the reopen, bring-up runs again and a new attempt goes out and connects.
    @Test func afterTheResetTheNextAttemptConnects() throws {
        var world = SimulatedWorld(peripherals: [SimulatedDevices.heartRateMonitor()])
        world.start()
        world.controller.unansweredOpcodes = [HCI.LECreateConnection.opcode]
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        _ = world.run(until: { $0.controllerFailed != nil }, within: .seconds(10))
        #expect(world.connectionFailure(HRM.address) == "controller failed")
        // The runner closes and reopens the transport: a fresh controller (this one, like a
        // hung real one, would not answer even HCI Reset).
        world.controller = SimulatedController(configuration: .init(), radio: SimulatedRadio(peripherals: [SimulatedDevices.heartRateMonitor()]))
        world.host.start(at: world.now)
        world.pump()
        let ready = world.run(until: { $0.host.isReady }, within: .seconds(10))
        #expect(ready, "\(world.events.suffix(6))")
        // (world.connect would stop at the first attempt's failure, already recorded.)
        world.host.connect(HRM.address, at: world.now)
        world.pump()
        let linked = world.run(until: { $0.connectedHandle(HRM.address) != nil }, within: .seconds(30))
        #expect(linked, "no link after the controller came back")
        #expect(world.host.handle(for: HRM.address) != nil)
    }
}
