import Bluetooth
import Clocks
import HCI
import Testing
@testable import Simulator

/// Connection-level commands: cancel, disconnect, update, encryption (Vol 4 Part E §7.1, §7.8).
@Suite struct SimulatedControllerCommandTests {
    static func status(_ opcode: HCI.Opcode, _ status: HCI.Status = .success) -> HCI.Event {
        .commandStatus(HCI.CommandStatus(status: status, numCommandPackets: 1, opcode: opcode))
    }

    @Test func createConnectionToASilentPeerStaysPendingUntilCancelled() throws {
        let absent = DeviceAddress(Address(value: 0xC0_DE_AD_00_00_01), type: .random)
        var host = TestHost(peripherals: [SimulatedDevices.heartRateMonitor()])
        try host.bringUp()
        #expect(try host.send(HCI.LECreateConnection(peer: absent)) == [Self.status(HCI.LECreateConnection.opcode)])
        host.run(until: host.now + .seconds(60))
        #expect(try host.events().isEmpty)
        #expect(host.controller.isConnecting)
        // A second attempt while one is pending is disallowed.
        #expect(try host.send(HCI.LECreateConnection(peer: absent)) == [Self.status(HCI.LECreateConnection.opcode, .commandDisallowed)])
        // §7.8.13: Command Complete, then LE Connection Complete with Unknown Connection Identifier.
        #expect(try host.send(HCI.LECreateConnectionCancel()) == [
            .commandComplete(HCI.CommandComplete(numCommandPackets: 1, opcode: HCI.LECreateConnectionCancel.opcode, returnParameters: [0])),
            .le(.connectionComplete(HCI.LEConnectionComplete(status: .unknownConnectionIdentifier, handle: 0, role: .central, peer: absent, interval: 0, latency: 0, supervisionTimeout: 0))),
        ])
        #expect(!host.controller.isConnecting)
        #expect(try host.complete(HCI.LECreateConnectionCancel()) == [0x0C])
    }

    @Test func createConnectionRejectsBadParametersAndDuplicates() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let bad = HCI.ConnectionParameters(intervalMin: 40, intervalMax: 24)
        #expect(try host.send(HCI.LECreateConnection(peer: hrm.address, parameters: bad)) == [Self.status(HCI.LECreateConnection.opcode, .invalidParameters)])
        var viaList = HCI.LECreateConnection(peer: hrm.address)
        viaList.useFilterAcceptList = true
        #expect(try host.send(viaList) == [Self.status(HCI.LECreateConnection.opcode, HCI.Status(0x11))])
        _ = try host.connect(hrm.address)
        #expect(try host.send(HCI.LECreateConnection(peer: hrm.address)) == [Self.status(HCI.LECreateConnection.opcode, HCI.Status(0x0B))])
    }

    @Test func disconnectReportsLocalHostTerminated() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        #expect(try host.send(HCI.Disconnect(handle: handle, reason: HCI.Status(0x42))) == [Self.status(HCI.Disconnect.opcode, .invalidParameters)])
        #expect(try host.send(HCI.Disconnect(handle: handle)) == [
            Self.status(HCI.Disconnect.opcode),
            .disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .localHostTerminated)),
        ])
        #expect(host.controller.radio[hrm.address.address]?.isConnected == false)
        #expect(host.controller.radio[hrm.address.address]?.events.last == .disconnected)
        #expect(try host.send(HCI.Disconnect(handle: handle)) == [Self.status(HCI.Disconnect.opcode, .unknownConnectionIdentifier)])
        // Advertising resumes: the peripheral can be connected again.
        #expect(try host.connect(hrm.address) == 0x0041)
    }

    @Test func connectionUpdateCompletesAfterTheDelay() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        let start = host.now
        let wanted = HCI.ConnectionParameters(intervalMin: 80, intervalMax: 100, latency: 4, supervisionTimeout: 600)
        #expect(try host.send(HCI.LEConnectionUpdate(handle: handle, parameters: wanted)) == [Self.status(HCI.LEConnectionUpdate.opcode)])
        #expect(host.controller.nextDeadline == start + .milliseconds(50))
        host.run(until: start + .milliseconds(50))
        #expect(try host.events() == [.le(.connectionUpdateComplete(HCI.LEConnectionUpdateComplete(status: .success, handle: handle, interval: 80, latency: 4, supervisionTimeout: 600)))])
        #expect(host.controller.radio[hrm.address.address]?.connectionParameters?.intervalMin == 80)
        #expect(try host.send(HCI.LEConnectionUpdate(handle: 0x0999, parameters: wanted)) == [Self.status(HCI.LEConnectionUpdate.opcode, .unknownConnectionIdentifier)])
    }

    @Test func readRemoteVersionAnswersAfterItsStatus() throws {
        let hrm = SimulatedDevices.heartRateMonitor()
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        #expect(try host.send(HCI.ReadRemoteVersionInformation(handle: handle)) == [
            Self.status(HCI.ReadRemoteVersionInformation.opcode), .readRemoteVersionComplete(status: .success, handle: handle),
        ])
    }

    // MARK: Encryption

    static let ediv: UInt16 = 0x1234
    static let rand: UInt64 = 0x0102_0304_0506_0708

    @Test func equalKeysEncryptAndAgainRefresh() throws {
        let hrm = PeripheralSecurityTests.monitor(key: FakeSecurity.key)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        let command = HCI.LEEnableEncryption(handle: handle, random: Self.rand, ediv: Self.ediv, longTermKey: FakeSecurity.key)
        #expect(try host.send(command) == [
            Self.status(HCI.LEEnableEncryption.opcode),
            .encryptionChange(HCI.EncryptionChange(status: .success, handle: handle, enabled: true)),
        ])
        let peripheral = try #require(host.controller.radio[hrm.address.address])
        #expect(peripheral.isEncrypted)
        #expect(peripheral.events.suffix(2) == [.encryptionEnabled, .paired(ediv: Self.ediv, rand: Self.rand)])
        // On an encrypted link the same command refreshes the key (§7.8.24, §7.7.39).
        #expect(try host.send(command) == [Self.status(HCI.LEEnableEncryption.opcode), .encryptionKeyRefreshComplete(status: .success, handle: handle)])
    }

    @Test func aMissingKeyIsPinOrKeyMissing() throws {
        let hrm = PeripheralSecurityTests.monitor(key: nil)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        #expect(try host.send(HCI.LEEnableEncryption(handle: handle, random: Self.rand, ediv: Self.ediv, longTermKey: FakeSecurity.key)) == [
            Self.status(HCI.LEEnableEncryption.opcode),
            .encryptionChange(HCI.EncryptionChange(status: .pinOrKeyMissing, handle: handle, enabled: false)),
        ])
        #expect(host.controller.connectionHandles == [handle])
    }

    @Test func aDifferentKeyEndsTheLinkWithMICFailure() throws {
        let hrm = PeripheralSecurityTests.monitor(key: FakeSecurity.key)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let handle = try host.connect(hrm.address)
        #expect(try host.send(HCI.LEEnableEncryption(handle: handle, random: Self.rand, ediv: Self.ediv, longTermKey: [UInt8](repeating: 0xAA, count: 16))) == [
            Self.status(HCI.LEEnableEncryption.opcode),
            .disconnectionComplete(HCI.DisconnectionComplete(status: .success, handle: handle, reason: .terminatedMICFailure)),
        ])
        #expect(host.controller.connectionHandles.isEmpty)
    }

    @Test func aBondFromAnEarlierConnectionReEncrypts() throws {
        var hrm = PeripheralSecurityTests.monitor(key: FakeSecurity.key)
        var host = TestHost(peripherals: [hrm])
        try host.bringUp()
        let first = try host.connect(hrm.address)
        _ = try host.send(HCI.LEEnableEncryption(handle: first, random: Self.rand, ediv: Self.ediv, longTermKey: FakeSecurity.key))
        _ = try host.send(HCI.Disconnect(handle: first))
        // The next connection's security side knows no key: the peripheral's bond memory does.
        hrm = try #require(host.controller.radio[hrm.address.address])
        hrm.securityFactory = { _, _ in FakeSecurity(knownKey: nil) }
        host.controller.radio[hrm.address.address] = hrm
        let second = try host.connect(hrm.address)
        #expect(try host.send(HCI.LEEnableEncryption(handle: second, random: Self.rand, ediv: Self.ediv, longTermKey: FakeSecurity.key)).last
                == .encryptionChange(HCI.EncryptionChange(status: .success, handle: second, enabled: true)))
    }

    @Test func encryptionOnAnUnknownHandleIsRefused() throws {
        var host = TestHost()
        try host.bringUp()
        #expect(try host.send(HCI.LEEnableEncryption(handle: 0x0040, random: 0, ediv: 0, longTermKey: FakeSecurity.key)) == [
            Self.status(HCI.LEEnableEncryption.opcode, .unknownConnectionIdentifier),
        ])
    }
}
