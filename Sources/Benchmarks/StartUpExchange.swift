import Bluetooth
import Clocks
import HCI
import Host
import Simulator

/// The packets a capture taken from the controller's power-on begins with: Vigil's own host
/// brings the simulated controller up and starts a scan, and every command and every answer
/// (Command Complete and Command Status, Core v5.4 Vol 4 Part E §7.7.14-15) is kept in order.
/// A capture taken while the adapter was already up has none of them.
enum StartUpExchange {
    static func records() -> [(direction: BTSnoop.Direction, packet: [UInt8])] {
        var host = Host(configuration: Host.Configuration(staticAddress: Address(value: 0xC0_12_34_56_78_9A)))
        var controller = SimulatedController()
        var records: [(direction: BTSnoop.Direction, packet: [UInt8])] = []
        host.start(at: .zero)
        // Bring-up and the scan take no virtual time; the bound only stops a loop that would not.
        for _ in 0..<1_000 {
            var exchanged = false
            for output in host.takeOutputs() {
                switch output {
                case .send(let packet):
                    records.append((.sent, packet))
                    controller.receive(fromHost: packet, at: .zero)
                    exchanged = true
                case .event(.controllerReady):
                    host.startScanning(active: true, at: .zero)
                    exchanged = true
                default:
                    break
                }
            }
            for packet in controller.takePacketsForHost() {
                records.append((.received, packet))
                host.receive(packet, at: .zero)
                exchanged = true
            }
            if !exchanged { break }
        }
        return records
    }
}
