import Bluetooth
import Clocks
import HCI
import Host
import Simulator

extension FuzzTarget {
    /// The whole `Host` after a real bring-up and one connection, fed a stream of HCI events,
    /// ACL data for the connection, raw H4 packets, deadlines and owner commands on a virtual
    /// clock. Commands the host sends are answered (Command Status or Command Complete, success)
    /// so it keeps its credits and the input reaches the layers above.
    ///
    /// Oracles: every H4 packet the host sends is well framed, and a handled deadline is not
    /// due again (a host that keeps returning a past deadline would spin the poll loop).
    ///
    /// At most `maximumOperations` per input: a 4 KiB input held a thousand tiny operations,
    /// each running the whole host, and the target fell to about 1,000 executions a second;
    /// the states a long input reaches are reached by shorter ones the fuzzer keeps.
    static let host = FuzzTarget(name: "host", summary: "Host (after bring-up with the simulated controller and a connection) fed events, ACL, deadlines and owner commands") { buffer in
        var input = FuzzInput(buffer)
        var world = HostFuzzWorld.connected
        var operations = 0
        while !input.isAtEnd && operations < HostFuzzWorld.maximumOperations {
            operations += 1
            let op = input.byte()
            switch op % 5 {
            case 0:
                // An event with a consistent length octet, so the fuzzer explores parameters.
                let body = input.chunk()
                let code = body.first ?? 0
                let parameters = Array(body.dropFirst().prefix(255))
                world.deliver([HCI.PacketType.event.rawValue, code, UInt8(parameters.count)] + parameters)
            case 1, 2:
                // ACL data on the connection (or a neighbour handle), boundary flag from the op.
                let data = input.chunk()
                let handle = HostFuzzWorld.handle &+ UInt16(op >> 7)
                let header = handle | UInt16((op >> 3) & 0b11) << 12
                world.deliver([HCI.PacketType.aclData.rawValue, UInt8(header & 0xFF), UInt8(header >> 8),
                               UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data)
            case 3:
                world.deliver(input.chunk())
            default:
                world.command(op >> 3, input: &input)
            }
        }
    }
}

/// A Host wired to an answering stub on a virtual clock; `connected` is built once per process
/// (bring-up against the simulated controller) and copied for every input.
struct HostFuzzWorld {
    static let maximumOperations = 128
    static let handle: UInt16 = 0x0040
    static let peer = DeviceAddress(Address(value: 0xC1_22_33_44_55_66), type: .random)

    var host: Host
    var now: MonotonicInstant

    /// Commands answered by Command Status rather than Command Complete (Vol 4 Part E §7).
    static let statusOpcodes: Set<UInt16> = [0x0406, 0x200D, 0x2013, 0x2016, 0x2019]

    static let connected: HostFuzzWorld = {
        var host = Host(configuration: Host.Configuration(staticAddress: Address(value: 0x12_34_56_78_9A)), random: FuzzRandom())
        var controller = SimulatedController()
        var now = MonotonicInstant.zero
        host.start(at: now)
        var steps = 0
        while !host.isReady && steps < 10_000 {
            steps += 1
            var moved = false
            for case .send(let packet) in host.takeOutputs() {
                moved = true
                controller.receive(fromHost: packet, at: now)
            }
            for packet in controller.takePacketsForHost() {
                moved = true
                host.receive(packet, at: now)
            }
            if !moved, let next = [host.nextDeadline, controller.nextDeadline].compactMap({ $0 }).min() {
                now = max(now, next)
                host.handleDeadline(at: now)
                controller.handleDeadline(at: now)
            }
        }
        precondition(host.isReady, "fuzz host bring-up against the simulated controller failed")
        var world = HostFuzzWorld(host: host, now: now)
        world.host.connect(peer, at: now)
        world.pump()
        let complete = HCI.LEConnectionComplete(status: .success, handle: handle, role: .central, peer: peer,
                                                interval: 24, latency: 0, supervisionTimeout: 72)
        world.deliver([HCI.PacketType.event.rawValue] + complete.eventBytes)
        return world
    }()

    /// Feeds one H4 packet and answers what the host sends.
    mutating func deliver(_ packet: [UInt8]) {
        host.receive(packet, at: now)
        pump()
    }

    /// Answers the host's commands and ACL (a few rounds: answers may prompt more commands).
    mutating func pump() {
        for _ in 0..<8 {
            var answers: [[UInt8]] = []
            for case .send(let packet) in host.takeOutputs() {
                fuzzCheck((try? HCI.Packet(h4: packet)) != nil && packet.count >= 3, "host sent a malformed H4 packet \(packet)")
                switch packet.first {
                case HCI.PacketType.command.rawValue:
                    let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
                    if Self.statusOpcodes.contains(opcode) {
                        answers.append([0x04, 0x0F, 4, 0x00, 1, packet[1], packet[2]])
                    } else {
                        answers.append([0x04, 0x0E, 4, 1, packet[1], packet[2], 0x00])
                    }
                case HCI.PacketType.aclData.rawValue:
                    // Number Of Completed Packets: one for the handle, so ACL credits return.
                    answers.append([0x04, 0x13, 5, 1, packet[1], packet[2] & 0x0F, 1, 0])
                default:
                    fuzzCheck(false, "host sent a packet that is neither a command nor ACL data")
                }
            }
            if answers.isEmpty { return }
            for answer in answers { host.receive(answer, at: now) }
        }
    }

    /// The owner's side: time passing and the calls the appliance makes.
    mutating func command(_ selector: UInt8, input: inout FuzzInput) {
        switch selector % 8 {
        case 0, 1:
            if let deadline = host.nextDeadline {
                now = max(now, deadline)
                host.handleDeadline(at: now)
                fuzzCheck(host.nextDeadline.map { $0 > now } ?? true, "host deadline still due after handling it")
            }
        case 2: now = now + .milliseconds(Int64(input.byte()) * 100)
        case 3: _ = host.gatt(FuzzTarget.gattOperation(input.byte()), on: Self.handle, at: now)
        case 4: host.pair(handle: Self.handle, at: now)
        case 5: host.secure(handle: Self.handle, at: now)
        case 6: host.startScanning(active: selector & 0x10 != 0, at: now)
        default: host.disconnect(handle: Self.handle, at: now)
        }
        pump()
    }
}
