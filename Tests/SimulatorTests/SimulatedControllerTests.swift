import Bluetooth
import Clocks
import HCI
import Testing
import Wire
@testable import Simulator

/// The controller driven with raw HCI packets built from Sources/HCI types, as a minimal host
/// would (Core v5.4 Vol 4 Part E).
@Suite struct SimulatedControllerBringUpTests {
    @Test func resetAndInformationalCommandsAnswerWithSpecLayouts() throws {
        var host = TestHost()
        #expect(try host.send(HCI.Reset()) == [.commandComplete(HCI.CommandComplete(numCommandPackets: 1, opcode: HCI.Reset.opcode, returnParameters: [0]))])

        let version = try HCI.ReadLocalVersionInformation.Return(returnParameters: try host.complete(HCI.ReadLocalVersionInformation()))
        #expect(version == HCI.ReadLocalVersionInformation.Return(hciVersion: 0x0D, hciSubversion: 1, lmpVersion: 0x0D, manufacturer: 0xFFFF, lmpSubversion: 1))

        // LMP features byte 4 = 0x60: BR/EDR Not Supported (bit 37) and LE Supported (bit 38).
        #expect(try host.complete(HCI.ReadLocalSupportedFeatures()) == [0, 0, 0, 0, 0, 0x60, 0, 0, 0])

        let shared = try HCI.ReadBufferSize.Return(returnParameters: try host.complete(HCI.ReadBufferSize()))
        #expect(shared == HCI.ReadBufferSize.Return(aclDataPacketLength: 27, totalNumACLDataPackets: 8))

        let le = try HCI.LEReadBufferSize.Return(returnParameters: try host.complete(HCI.LEReadBufferSize()))
        #expect(le == HCI.LEReadBufferSize.Return(leACLDataPacketLength: 27, totalNumLEACLDataPackets: 8))

        let features = try HCI.LEReadLocalSupportedFeatures.Return(returnParameters: try host.complete(HCI.LEReadLocalSupportedFeatures()))
        #expect(features.supportsEncryption && !features.supportsExtendedAdvertising)

        let bdaddr = try HCI.ReadBDADDR.Return(returnParameters: try host.complete(HCI.ReadBDADDR()))
        #expect(bdaddr.address == Address("00:1B:DC:07:51:0A"))

        #expect(try host.complete(HCI.SetEventMask()) == [0])
        #expect(host.controller.eventMask == HCI.SetEventMask.vigilDefault)
        #expect(try host.complete(HCI.LESetEventMask()) == [0])
        #expect(host.controller.leEventMask == HCI.LESetEventMask.vigilDefault)
        #expect(try host.complete(HCI.WriteLEHostSupport()) == [0])
        #expect(try host.complete(HCI.LESetRandomAddress(address: host.ownAddress)) == [0])
        #expect(host.controller.randomAddress == host.ownAddress)
    }

    @Test func bufferSizesAndCreditsAreConfigurable() throws {
        var configuration = SimulatedController.Configuration()
        configuration.leACLDataPacketLength = 251
        configuration.totalNumLEACLDataPackets = 3
        configuration.commandCredits = 4
        var host = TestHost(configuration: configuration)
        let events = try host.send(HCI.LEReadBufferSize())
        guard case .commandComplete(let cc) = events.first else { Issue.record("no Command Complete"); return }
        #expect(cc.numCommandPackets == 4)
        #expect(try HCI.LEReadBufferSize.Return(returnParameters: cc.returnParameters) == .init(leACLDataPacketLength: 251, totalNumLEACLDataPackets: 3))
    }

    @Test func leRandIsDeterministicPerSeedAndChanges() throws {
        var a = TestHost()
        var b = TestHost()
        let first = try a.complete(HCI.LERand())
        let second = try a.complete(HCI.LERand())
        #expect(first.count == 9 && first[0] == 0)
        #expect(first != second)
        #expect(try b.complete(HCI.LERand()) == first)
    }

    /// Opcodes the simulator does not implement, including one with no parameters that no host sends.
    @Test(arguments: [
        HCI.CommandPacket(opcode: HCI.Opcode(ogf: 0x08, ocf: 0x0022), parameters: [0x40, 0x00, 0xFB, 0x00, 0x48, 0x08]),  // LE Set Data Length
        HCI.CommandPacket(opcode: HCI.Opcode(ogf: 0x05, ocf: 0x0005), parameters: [0x40, 0x00]),  // Read RSSI
        HCI.CommandPacket(opcode: HCI.Opcode(ogf: 0x3F, ocf: 0x0001), parameters: []),  // a vendor command
    ])
    func unknownCommandsAnswerUnknownHCICommand(_ packet: HCI.CommandPacket) throws {
        var host = TestHost()
        host.controller.receive(fromHost: [0x01] + packet.bytes, at: host.now)
        #expect(try host.events() == [.commandComplete(HCI.CommandComplete(numCommandPackets: 1, opcode: packet.opcode, returnParameters: [0x01]))])
    }

    @Test func parametersOfTheWrongSizeAreInvalidParameters() throws {
        var host = TestHost()
        // LE Set Scan Enable with one parameter byte instead of two; the length byte is honest.
        host.controller.receive(fromHost: [0x01, 0x0C, 0x20, 0x01, 0x01], at: host.now)
        #expect(try host.events() == [.commandComplete(HCI.CommandComplete(numCommandPackets: 1, opcode: HCI.LESetScanEnable.opcode, returnParameters: [0x12]))])
        // A length byte that lies: recorded, and still answered so the host keeps its credit.
        host.controller.receive(fromHost: [0x01, 0x03, 0x0C, 0x05], at: host.now)
        #expect(host.controller.violations == [.malformedCommand([0x03, 0x0C, 0x05])])
        #expect(try host.events() == [.commandComplete(HCI.CommandComplete(numCommandPackets: 1, opcode: HCI.Reset.opcode, returnParameters: [0x12]))])
    }

    @Test func commandsBeyondTheCreditAreReportedAndDropped() throws {
        var host = TestHost()
        host.controller.receive(fromHost: [0x01] + HCI.Reset().commandBytes, at: host.now)
        // The host has not taken the Command Complete yet, so it holds no credit.
        host.controller.receive(fromHost: [0x01] + HCI.LERand().commandBytes, at: host.now)
        #expect(host.controller.violations == [.commandWithoutCredit(opcode: HCI.LERand.opcode.rawValue)])
        #expect(try host.events().count == 1)
        // Having taken the event, the host has its credit back.
        _ = try host.complete(HCI.LERand())
        #expect(host.controller.violations.count == 1)
    }

    @Test func moreCreditsAllowPipelinedCommands() throws {
        var configuration = SimulatedController.Configuration()
        configuration.commandCredits = 2
        var host = TestHost(configuration: configuration)
        _ = try host.complete(HCI.Reset())  // the host learns it holds two credits
        host.controller.receive(fromHost: [0x01] + HCI.LERand().commandBytes, at: host.now)
        host.controller.receive(fromHost: [0x01] + HCI.LERand().commandBytes, at: host.now)
        host.controller.receive(fromHost: [0x01] + HCI.LERand().commandBytes, at: host.now)
        #expect(try host.events().count == 2)
        #expect(host.controller.violations == [.commandWithoutCredit(opcode: HCI.LERand.opcode.rawValue)])
    }

    @Test func resetClearsScanningConnectionsAndMasks() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        _ = try host.connect(hrm.address)
        _ = try host.complete(HCI.LESetScanParameters(active: true))
        _ = try host.complete(HCI.LESetScanEnable(enable: true))
        _ = try host.complete(HCI.Reset())
        #expect(!host.controller.isScanning)
        #expect(host.controller.connectionHandles.isEmpty)
        #expect(host.controller.eventMask == 0x0000_1FFF_FFFF_FFFF)
        #expect(host.controller.randomAddress == nil)
        #expect(host.controller.radio[hrm.address.address]?.isConnected == false)
        // Reset drops links silently: no Disconnection Complete follows.
        host.run(until: host.now + .seconds(10))
        #expect(try host.events().isEmpty)
    }
}
