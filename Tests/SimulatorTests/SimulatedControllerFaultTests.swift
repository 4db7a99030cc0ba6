import Bluetooth
import Clocks
import HCI
import Testing
@testable import Simulator

/// Each fault toggle of the controller (a dead controller, an unanswered opcode, garbage,
/// dropped links and peers that vanish).
@Suite struct SimulatedControllerFaultTests {
    @Test func aDeadControllerAnswersNothingAndSchedulesNothing() throws {
        var host = TestHost(peripherals: [SimulatedDevices.heartRateMonitor()])
        try host.bringUp()
        _ = try host.complete(HCI.LESetScanParameters(active: true))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        host.controller.isDead = true
        #expect(host.controller.nextDeadline == nil)
        #expect(try host.send(HCI.Reset()).isEmpty)
        host.run(until: host.now + .seconds(5))
        #expect(try host.events().isEmpty)
        // Revived, it does not replay five seconds of advertising at once.
        host.controller.isDead = false
        #expect(host.controller.nextDeadline == host.now)  // the event at exactly 5 s, not the 49 before it
    }

    @Test func anUnansweredOpcodeIsSwallowedAndTheCreditWithIt() throws {
        var host = TestHost()
        try host.bringUp()
        host.controller.unansweredOpcodes = [HCI.LERand.opcode]
        #expect(try host.send(HCI.LERand()).isEmpty)
        #expect(host.controller.nextDeadline == nil)
        // The host never got its credit back, so anything further is a violation.
        #expect(try host.send(HCI.Reset()).isEmpty)
        #expect(host.controller.violations == [.commandWithoutCredit(opcode: HCI.Reset.opcode.rawValue)])
    }

    @Test func injectedBytesReachTheHostVerbatimAndInOrder() throws {
        var host = TestHost()
        host.controller.receive(fromHost: [0x01] + HCI.Reset().commandBytes, at: host.now)
        host.controller.injectTowardHost([0x04, 0x0E, 0xFF])  // an event whose length lies
        host.controller.injectTowardHost([0x99, 0x00])        // an unknown H4 indicator
        let packets = host.controller.takePacketsForHost()
        #expect(packets.count == 3)
        #expect(packets[1] == [0x04, 0x0E, 0xFF])
        #expect(packets[2] == [0x99, 0x00])
        #expect(throws: (any Error).self) { try HCI.Event(bytes: Array(packets[1].dropFirst())) }
    }

    @Test func packetsOfOtherTypesFromTheHostAreReported() throws {
        var host = TestHost()
        host.controller.receive(fromHost: [0x03, 0x40, 0x00, 0x00], at: host.now)  // SCO
        host.controller.receive(fromHost: [], at: host.now)
        #expect(host.controller.violations == [.unexpectedPacketType(0x03)])
        #expect(try host.events().isEmpty)
    }

    @Test func aDroppedConnectionReportsTheChosenReason() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.controller.dropConnection(handle: handle, at: host.now)
        #expect(try host.events() == [.disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .connectionTimeout))])
        let again = try host.connect(hrm.address)
        host.controller.dropConnection(handle: again, reason: .remotePowerOff, at: host.now)
        #expect(try host.events() == [.disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: again, reason: .remotePowerOff))])
    }

    @Test func aVanishedPeerIsLostAfterTheSupervisionTimeout() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        // Supervision timeout 400 × 10 ms = 4 s.
        let handle = try host.connect(hrm.address, parameters: .init(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400))
        let vanishedAt = host.now
        host.controller.vanish(hrm.address.address, at: vanishedAt)
        #expect(host.controller.nextDeadline == vanishedAt + .seconds(4))
        host.run(until: vanishedAt + .milliseconds(3999))
        #expect(try host.events().isEmpty)
        host.run(until: vanishedAt + .seconds(4))
        #expect(try host.events() == [.disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .connectionTimeout))])
        // Gone from the air too: no reports, and a new connection attempt stays pending.
        _ = try host.complete(HCI.LESetScanParameters(active: true))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        _ = try host.send(HCI.LECreateConnection(peer: hrm.address))
        host.run(until: host.now + .seconds(10))
        #expect(try host.events().isEmpty)
        #expect(host.controller.isConnecting)
        // Back in range, it is heard and connected at its next event.
        host.controller.radio[hrm.address.address]?.reappear(at: host.now)
        host.run(until: host.now + .milliseconds(1))
        #expect(try host.events().contains { if case .le(.connectionComplete(let c)) = $0 { c.status.isSuccess } else { false } })
    }

    @Test func vanishingThroughTheRadioIsNoticedToo() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.controller.radio[hrm.address.address]?.vanish()
        // nextDeadline already counts the supervision timeout from now.
        let due = try #require(host.controller.nextDeadline)
        #expect(due == host.now + .seconds(4))
        host.run(until: due)
        #expect(try host.events() == [.disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .connectionTimeout))])
    }

    @Test func aVanishedPeerSendsNothing() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        let cccd = try #require(hrm.cccdHandle(of: 0x2A37))
        _ = try host.att(handle, [0x12] + le16(cccd) + [0x01, 0x00])
        host.controller.vanish(hrm.address.address, at: host.now)
        host.run(until: host.now + .seconds(3))
        #expect(try host.l2capFrames().isEmpty)
    }
}

@Suite struct SimulatedControllerHardwareErrorTests {
    @Test func hardwareErrorIsReportedUnlessMasked() throws {
        var host = TestHost()
        host.controller.reportHardwareError(code: 0x2A)
        #expect(try host.events() == [.hardwareError(code: 0x2A)])
        _ = try host.complete(HCI.SetEventMask(mask: HCI.SetEventMask.vigilDefault & ~(1 << 15)))
        host.controller.reportHardwareError(code: 0x2A)
        #expect(try host.events().isEmpty)
    }
}

@Suite struct SimulatedControllerUnacknowledgedDataTests {
    /// Data toward a vanished peer is never acknowledged: the host's credits come back only with
    /// the Disconnection Complete at the supervision timeout.
    @Test func creditsReturnWithTheDisconnection() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var configuration = SimulatedController.Configuration()
        configuration.totalNumLEACLDataPackets = 2
        var host = TestHost(configuration: configuration, peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        host.controller.vanish(hrm.address.address, at: host.now)
        host.sendL2CAP(handle: handle, cid: 4, [0x0A, 0x03, 0x00])
        host.sendL2CAP(handle: handle, cid: 4, [0x0A, 0x03, 0x00])
        #expect(try host.events().isEmpty)
        host.sendL2CAP(handle: handle, cid: 4, [0x0A, 0x03, 0x00])
        #expect(host.controller.violations == [.aclWithoutBuffer(handle: handle)])
        host.run(until: host.now + .seconds(4))
        #expect(try host.events() == [.disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .connectionTimeout))])
        // Both buffers are the host's again: two packets to a new link raise no violation.
        host.controller.radio[hrm.address.address]?.reappear(at: host.now)
        let again = try host.connect(hrm.address)
        host.sendL2CAP(handle: again, cid: 4, [0x0A, 0x06, 0x00])
        host.sendL2CAP(handle: again, cid: 4, [0x0A, 0x06, 0x00])
        #expect(host.controller.violations.count == 1)
    }
}
