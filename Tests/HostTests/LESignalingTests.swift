import Bluetooth
import Clocks
import HCI
import Simulator
import Testing
@testable import Host

/// The LE signaling channel, CID 0x0005 (Core v5.4 Vol 3 Part A §4): Connection Parameter
/// Update Requests from the peripheral, and Command Reject for everything else.
@Suite struct LESignalingTests {
    @Test func commandsDecodeAndEncode() throws {
        // Connection Parameter Update Request (§4.20): code 0x12, id 7, length 8,
        // interval 24–40 (×1.25 ms), latency 0, timeout 400 (×10 ms).
        let bytes: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01]
        let command = try L2CAP.LESignaling.Command(bytes: bytes)
        #expect(command.code == 0x12)
        #expect(command.identifier == 7)
        #expect(command.data.count == 8)
        #expect(command.bytes == bytes)
        let parameters = try L2CAP.LESignaling.decodeParameterUpdateRequest(command.data)
        #expect(parameters.intervalMin == 24)
        #expect(parameters.intervalMax == 40)
        #expect(parameters.latency == 0)
        #expect(parameters.supervisionTimeout == 400)
        // Response (§4.21): result 0 accepted, 1 rejected.
        #expect(L2CAP.LESignaling.parameterUpdateResponse(identifier: 7, accepted: true).bytes == [0x13, 0x07, 0x02, 0x00, 0x00, 0x00])
        #expect(L2CAP.LESignaling.parameterUpdateResponse(identifier: 7, accepted: false).bytes == [0x13, 0x07, 0x02, 0x00, 0x01, 0x00])
        // Command Reject (§4.1): reason 0x0000 Command not understood.
        #expect(L2CAP.LESignaling.commandReject(identifier: 9, reason: .commandNotUnderstood).bytes == [0x01, 0x09, 0x02, 0x00, 0x00, 0x00])
    }

    static let malformedCommands: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("code only", [0x12]),
        ("length says 8, 4 follow", [0x12, 0x01, 0x08, 0x00, 1, 2, 3, 4]),
        ("length says 0, 2 follow", [0x12, 0x01, 0x00, 0x00, 1, 2]),
    ]

    @Test(arguments: malformedCommands.indices)
    func malformedCommandsAreRejectedByType(index: Int) {
        let (name, bytes) = Self.malformedCommands[index]
        #expect(throws: (any Error).self, "\(name)") { try L2CAP.LESignaling.Command(bytes: bytes) }
    }

    @Test func aParameterUpdateRequestIsAcceptedAnsweredAndApplied() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        let wanted = HCI.ConnectionParameters(intervalMin: 80, intervalMax: 100, latency: 4, supervisionTimeout: 600)
        let asked = world.now
        let now = world.now
        world.controller.radio[HRM.address.address]?.requestConnectionParameterUpdate(wanted, at: now)
        world.pump()
        #expect(world.peripheral(HRM.address)?.events.contains(.connectionParameterUpdateAnswered(accepted: true)) == true)
        let update = try #require(world.sentCommands(HCI.LEConnectionUpdate.self).last)
        #expect(update.handle == handle)
        #expect(update.parameters.intervalMin == 80)
        #expect(update.parameters.intervalMax == 100)
        #expect(update.parameters.latency == 4)
        #expect(update.parameters.supervisionTimeout == 600)
        world.run(until: { w in w.events.contains { if case .connectionParametersChanged = $0 { true } else { false } } }, within: .seconds(1))
        // The simulated controller takes 50 ms to reach the instant and picks the shortest interval.
        #expect(world.events.contains(.connectionParametersChanged(handle: handle, interval: 80, latency: 4, supervisionTimeout: 600)))
        #expect(world.now == asked + .milliseconds(50))
        #expect(world.peripheral(HRM.address)?.connectionParameters?.intervalMin == 80)
        world.expectHealthy()
    }

    @Test func anInvalidParameterRequestIsRejectedAndNothingIsApplied() throws {
        var (world, _) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        // Supervision timeout 100 ms cannot cover (1 + 10) × 125 ms × 2 (Vol 6 Part B §4.5.2).
        let invalid = HCI.ConnectionParameters(intervalMin: 100, intervalMax: 100, latency: 10, supervisionTimeout: 10)
        let now = world.now
        world.controller.radio[HRM.address.address]?.requestConnectionParameterUpdate(invalid, at: now)
        world.pump()
        #expect(world.peripheral(HRM.address)?.events.contains(.connectionParameterUpdateAnswered(accepted: false)) == true)
        #expect(world.sentCommands(HCI.LEConnectionUpdate.self).isEmpty)
        #expect(world.logged("rejected invalid connection parameters", atLeast: .notice))
        world.expectHealthy()
    }

    @Test func unknownAndMalformedSignalingIsRejectedAndLogged() throws {
        var (world, handle) = SimulatedWorld.connected(to: [SimulatedDevices.heartRateMonitor()])
        // An LE Credit Based Connection Request (0x14): Vigil offers no dynamic channels.
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.leSignaling,
                                                              payload: [0x14, 0x05, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x17, 0x00, 0x17, 0x00, 0x01, 0x00])
        world.pump()
        #expect(world.peripheral(HRM.address)?.events.contains(.commandRejectReceived(reason: 0)) == true)
        // A command whose length lies: logged, and rejected under its identifier.
        world.controller.radio[HRM.address.address]?.sendRaw(cid: L2CAP.ChannelID.leSignaling, payload: [0x12, 0x06, 0x08, 0x00, 0x01])
        world.pump()
        #expect(world.logged("malformed LE signaling command", atLeast: .warning))
        let rejects = world.sentFrames.filter { $0.channel == L2CAP.ChannelID.leSignaling && $0.payload.first == 0x01 }.map(\.payload)
        #expect(rejects == [[0x01, 0x05, 0x02, 0x00, 0x00, 0x00], [0x01, 0x06, 0x02, 0x00, 0x00, 0x00]])
        let outcome1 = world.perform(.read(handle: HRM.bodySensorLocation), on: handle)
        #expect(outcome1 == .value([0x01]))
        world.expectHealthy()
    }
}
