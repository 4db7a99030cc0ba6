import Bluetooth
import Clocks
import HCI
import Testing
import Wire
@testable import Simulator

/// A minimal host for the tests: builds commands and ACL from Sources/HCI types, reads the
/// controller's packets back with the HCI decoders, and drives a virtual clock by jumping to
/// `nextDeadline`. Nothing sleeps.
struct TestHost {
    var controller: SimulatedController
    var now = MonotonicInstant.zero
    let ownAddress = Address(value: 0xD0_00_00_00_00_01)

    init(configuration: SimulatedController.Configuration = .init(), peripherals: [SimulatedPeripheral] = []) {
        controller = SimulatedController(configuration: configuration, radio: SimulatedRadio(peripherals: peripherals))
    }

    static func ms(_ v: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: v * 1_000_000) }

    /// Sends a command and returns every event that comes back at once.
    mutating func send(_ command: some HCICommand) throws -> [HCI.Event] {
        controller.receive(fromHost: [HCI.PacketType.command.rawValue] + command.commandBytes, at: now)
        return try events()
    }

    /// Sends a command expecting Command Complete; returns its return parameters.
    mutating func complete(_ command: some HCICommand) throws -> [UInt8] {
        let events = try send(command)
        guard events.count == 1, case .commandComplete(let cc) = events[0] else {
            Issue.record("expected one Command Complete, got \(events)")
            return []
        }
        #expect(cc.opcode == type(of: command).opcode)
        return cc.returnParameters
    }

    /// Drains the controller: events decoded, ACL packets dropped (use `packets()` for those).
    mutating func events() throws -> [HCI.Event] {
        try controller.takePacketsForHost().compactMap { h4 in
            guard case .event(let body) = try HCI.Packet(h4: h4) else { return nil }
            return try HCI.Event(bytes: body)
        }
    }

    mutating func packets() throws -> [HCI.Packet] {
        try controller.takePacketsForHost().map { try HCI.Packet(h4: $0) }
    }

    /// Runs the virtual clock to `target`, stopping at every deadline on the way.
    mutating func run(until target: MonotonicInstant) {
        while let due = controller.nextDeadline, due <= target {
            now = max(now, due)
            controller.handleDeadline(at: now)
        }
        now = max(now, target)
        controller.handleDeadline(at: now)
    }

    /// Reset, event masks that enable LE meta events, a random address: what a host does first.
    mutating func bringUp() throws {
        _ = try complete(HCI.Reset())
        _ = try complete(HCI.SetEventMask())
        _ = try complete(HCI.LESetEventMask())
        _ = try complete(HCI.LESetRandomAddress(address: ownAddress))
    }

    /// Connects to `peer` and returns the handle, running the clock until the LE Connection Complete.
    mutating func connect(_ peer: DeviceAddress, parameters: HCI.ConnectionParameters = .init()) throws -> UInt16 {
        let status = try send(HCI.LECreateConnection(peer: peer, parameters: parameters))
        #expect(status == [.commandStatus(HCI.CommandStatus(status: .success, numCommandPackets: 1, opcode: HCI.LECreateConnection.opcode))])
        run(until: now + .seconds(1))
        for event in try events() {
            if case .le(.connectionComplete(let c)) = event, c.status.isSuccess { return c.handle }
        }
        Issue.record("no connection to \(peer)")
        return 0
    }

    /// Sends one L2CAP frame, fragmented to the controller's LE buffer size like a host must.
    mutating func sendL2CAP(handle: UInt16, cid: UInt16, _ payload: [UInt8], fragment: Int = 27) {
        var w = ByteWriter()
        w.write(UInt16(payload.count)); w.write(cid); w.write(contentsOf: payload)
        let frame = w.bytes
        var offset = 0
        repeat {
            let chunk = Array(frame[offset..<min(frame.count, offset + fragment)])
            let acl = HCI.ACLData(handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing, data: chunk)
            controller.receive(fromHost: [HCI.PacketType.aclData.rawValue] + acl.bytes, at: now)
            offset += fragment
        } while offset < frame.count
    }

    /// The L2CAP frames (cid, payload) the controller sent, reassembled from its ACL fragments.
    mutating func l2capFrames() throws -> [(handle: UInt16, cid: UInt16, payload: [UInt8])] {
        var frames: [(UInt16, UInt16, [UInt8])] = []
        var partial: [UInt16: [UInt8]] = [:]
        for packet in try packets() {
            guard case .aclData(let body) = packet else { continue }
            let acl = try HCI.ACLData(bytes: body)
            if acl.boundary.isFirst { partial[acl.handle] = acl.data } else { partial[acl.handle, default: []] += acl.data }
            let buffer = partial[acl.handle]!
            if buffer.count >= 4, buffer.count == 4 + (Int(buffer[0]) | Int(buffer[1]) << 8) {
                frames.append((acl.handle, UInt16(buffer[2]) | UInt16(buffer[3]) << 8, Array(buffer[4...])))
                partial[acl.handle] = nil
            }
        }
        return frames
    }

    /// An ATT exchange: sends `pdu` on CID 4 and returns the ATT PDUs that came back.
    mutating func att(_ handle: UInt16, _ pdu: [UInt8]) throws -> [[UInt8]] {
        sendL2CAP(handle: handle, cid: 0x0004, pdu)
        return try l2capFrames().filter { $0.cid == 0x0004 }.map(\.payload)
    }
}

/// Little-endian helpers for hand-built PDUs.
func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(v >> 8)] }
