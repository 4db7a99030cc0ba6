import HCI
import Host
import Testing
@testable import FuzzTargets

@Suite struct HostFuzzWorldTests {
    /// The host target is only worth its executions if its inputs reach a connected host:
    /// bring-up against the simulated controller finished and the connection is up.
    @Test func startsFromAReadyHostWithOneConnection() {
        let world = HostFuzzWorld.connected
        #expect(world.host.isReady)
        #expect(world.host.connectedPeers == [HostFuzzWorld.handle: HostFuzzWorld.peer])
    }

    /// Inputs reach the host: a Disconnection Complete (Vol 4 Part E §7.7.5: status 0,
    /// handle 0x0040, reason 0x13 remote user terminated) ends the connection.
    @Test func deliveredEventReachesTheHost() {
        var world = HostFuzzWorld.connected
        world.deliver([0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        #expect(world.host.connectedPeers.isEmpty)
    }
}
