import Bluetooth
import Clocks
import HCI
import Host
import SMP

// Targets for the host above HCI: ATT/GATT, the Security Manager, and the whole Host.

extension FuzzTarget {
    /// ATT PDUs (Core v5.4 Vol 3 Part F §3.4) arriving at our GATT client: responses that drive
    /// a real procedure, notifications and indications, and requests from the peer's own client
    /// role that we must answer. Input: an operation octet, then PDUs each prefixed by a length
    /// octet; a zero-length PDU stands for "the 30 s transaction timer fires".
    ///
    /// Oracles: nothing we send exceeds ATT_MTU (§3.2.8), and a handled deadline is not due again.
    static let att = FuzzTarget(name: "att", summary: "ATT.InboundPDU and GATTClient.receive driving each GATT procedure, peer requests, the 30 s timer") { buffer in
        var input = FuzzInput(buffer)
        var client = GATTClient(preferredMTU: input.byte() & 1 == 0 ? 247 : 23)
        var now = MonotonicInstant.zero
        var id: GATTClient.RequestID = 0
        func check(_ outputs: [GATTClient.Output]) {
            for case .send(let pdu) in outputs {
                fuzzCheck(pdu.count <= client.mtu, "sent an ATT PDU of \(pdu.count) bytes over ATT_MTU \(client.mtu)")
            }
        }
        func enqueueNext(_ selector: UInt8) {
            id += 1
            check(client.enqueue(gattOperation(selector), id: id, at: now))
        }
        enqueueNext(input.byte())
        while !input.isAtEnd {
            let pdu = input.chunk()
            if pdu.isEmpty {
                if let deadline = client.nextDeadline {
                    now = max(now, deadline)
                    check(client.handleDeadline(at: now))
                    fuzzCheck(client.nextDeadline.map { $0 > now } ?? true, "GATT deadline still due after handling it")
                }
                continue
            }
            _ = try? ATT.InboundPDU(bytes: pdu)
            now = now + .milliseconds(10)
            check(client.receive(pdu, at: now))
            if client.isIdle && !client.isClosed { enqueueNext(pdu[0]) }
        }
        check(client.disconnected())
    }

    /// A GATT client operation picked by one octet, on plausible handles.
    static func gattOperation(_ selector: UInt8) -> GATTClient.Operation {
        let handle = UInt16(selector >> 3) + 1
        switch selector % 8 {
        case 0: return .discoverDatabase
        case 1: return .exchangeMTU(517)
        case 2: return .discoverPrimaryServices(nil)
        case 3: return .discoverPrimaryServices(BluetoothUUID(0x180D))
        case 4: return .discoverCharacteristics(GATT.Service(uuid: BluetoothUUID(0x180D), startHandle: handle, endHandle: handle &+ 8))
        case 5: return .discoverDescriptors(start: handle, end: handle &+ 4)
        case 6: return .read(handle: handle)
        default: return .write(handle: handle, value: [0x01, 0x00])
        }
    }

    /// Security Manager PDUs (Vol 3 Part H §3) against our initiator (central) or responder
    /// (the simulated peripheral's side, also used by tests), LE Secure Connections or legacy.
    /// Input: a configuration octet, then a script of events (PDUs with a length octet, link
    /// encryption changes, LTK requests, deadlines).
    ///
    /// Oracles: every PDU we send decodes as an SMP command; a handled deadline is not due again.
    static let smp = FuzzTarget(name: "smp", summary: "SMP.Command(decoding:), SMP.Initiator and SMP.Responder fed PDUs, encryption changes and deadlines") { buffer in
        var input = FuzzInput(buffer)
        let setup = input.byte()
        let configuration = SMP.Configuration(secureConnections: setup & 1 == 0, requireSecureConnections: setup & 2 != 0, bonding: setup & 4 == 0)
        let central = DeviceAddress(Address(value: 0xC0_12_34_56_78_9A), type: .random)
        let peripheral = DeviceAddress(Address(value: 0x00_1B_DC_07_51_0A), type: .public)
        var now = MonotonicInstant.zero
        func checkSent(_ pdus: [[UInt8]]) {
            for pdu in pdus {
                fuzzCheck((try? SMP.Command(decoding: pdu)) != nil, "sent an SMP PDU that does not decode: \(pdu)")
            }
        }
        if setup & 8 == 0 {
            var initiator = SMP.Initiator(local: central, peer: peripheral, configuration: configuration, random: FuzzRandom())
            func sent(_ actions: [SMP.Action]) { checkSent(actions.compactMap { if case .send(let p) = $0 { p } else { nil } }) }
            sent(initiator.startPairing(at: now))
            while !input.isAtEnd {
                let op = input.byte()
                now = now + .milliseconds(Int64(op >> 4))
                switch op % 4 {
                case 0, 1:
                    let pdu = input.chunk()
                    _ = try? SMP.Command(decoding: pdu)
                    sent(initiator.receive(pdu, at: now))
                case 2:
                    sent(initiator.encryptionChanged(enabled: op & 0x10 == 0, at: now))
                default:
                    if let deadline = initiator.nextDeadline {
                        now = max(now, deadline)
                        sent(initiator.handleDeadline(at: now))
                        fuzzCheck(initiator.nextDeadline.map { $0 > now } ?? true, "SMP deadline still due after handling it")
                    } else {
                        sent(initiator.startPairing(at: now))
                    }
                }
            }
        } else {
            var responder = SMP.Responder(local: peripheral, peer: central, configuration: configuration, random: FuzzRandom())
            func sent(_ actions: [SMP.Responder.Action]) { checkSent(actions.compactMap { if case .send(let p) = $0 { p } else { nil } }) }
            if setup & 16 != 0 { sent(responder.requestSecurity(at: now)) }
            while !input.isAtEnd {
                let op = input.byte()
                now = now + .milliseconds(Int64(op >> 4))
                switch op % 5 {
                case 0, 1:
                    let pdu = input.chunk()
                    _ = try? SMP.Command(decoding: pdu)
                    sent(responder.receive(pdu, at: now))
                case 2:
                    sent(responder.encryptionChanged(enabled: op & 0x10 == 0, at: now))
                case 3:
                    sent(responder.longTermKeyRequested(ediv: input.uint16(), rand: UInt64(input.uint16()), at: now))
                default:
                    if let deadline = responder.nextDeadline {
                        now = max(now, deadline)
                        sent(responder.handleDeadline(at: now))
                        fuzzCheck(responder.nextDeadline.map { $0 > now } ?? true, "SMP deadline still due after handling it")
                    }
                }
            }
        }
    }
}
