import Clocks
import HCI
import Wire

/// LE fixed channels (Core v5.4 Vol 3 Part A §2.1).
enum L2CAPChannel {
    static let att: UInt16 = 0x0004
    static let signaling: UInt16 = 0x0005
    static let smp: UInt16 = 0x0006
}

/// L2CAP LE signaling command codes (Vol 3 Part A §4).
enum L2CAPSignal {
    static let commandReject: UInt8 = 0x01
    static let connectionParameterUpdateRequest: UInt8 = 0x12
    static let connectionParameterUpdateResponse: UInt8 = 0x13
    /// Command Reject reason 0x0000, Command not understood (§4.1).
    static let notUnderstood: UInt16 = 0x0000
}

extension SimulatedPeripheral {
    /// A basic L2CAP frame: length u16 · CID u16 · payload (Vol 3 Part A §3.1), with the length
    /// falsified by `l2capLengthLie` when a test wants a lying peer.
    func frame(cid: UInt16, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: 4 + payload.count)
        w.write(UInt16(truncatingIfNeeded: payload.count + l2capLengthLie))
        w.write(cid)
        w.write(contentsOf: payload)
        return w.bytes
    }

    /// One whole L2CAP frame from the central, already reassembled by the controller.
    mutating func receive(frame bytes: [UInt8], at now: MonotonicInstant) {
        guard link != nil, bytes.count >= 4 else { return }
        let cid = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
        let payload = Array(bytes[4...])
        switch cid {
        case L2CAPChannel.att:
            sendATT(server.receive(payload, link: linkSecurity(), at: now))
        case L2CAPChannel.signaling:
            receiveSignaling(payload, at: now)
        case L2CAPChannel.smp:
            if let outputs = security?.receiveOutputs(payload, at: now) {
                apply(outputs)
            } else if let code = payload.first, code != 0x05 {
                // No security manager: Pairing Failed, Pairing Not Supported (Vol 3 Part H §3.5.5).
                outbox.append(frame(cid: L2CAPChannel.smp, [0x05, 0x05]))
            }
        default:
            events.append(.droppedFrame(cid: cid))
        }
    }

    /// Asks the central for new connection parameters (Vol 3 Part A §4.20) and waits up to the
    /// 30 s RTX for the response.
    public mutating func requestConnectionParameterUpdate(_ parameters: HCI.ConnectionParameters, at now: MonotonicInstant) {
        guard link != nil else { return }
        // Identifier 0 is never used (§4).
        signalingIdentifier = signalingIdentifier == 0xFF ? 1 : signalingIdentifier + 1
        var w = ByteWriter()
        w.write(L2CAPSignal.connectionParameterUpdateRequest); w.write(signalingIdentifier); w.write(UInt16(8))
        w.write(parameters.intervalMin); w.write(parameters.intervalMax); w.write(parameters.latency); w.write(parameters.supervisionTimeout)
        outbox.append(frame(cid: L2CAPChannel.signaling, w.bytes))
        pendingParameterRequest = (signalingIdentifier, now + .seconds(30))
    }

    private mutating func receiveSignaling(_ payload: [UInt8], at now: MonotonicInstant) {
        var r = ByteReader(payload)
        guard let code = try? r.readUInt8("Code"), let identifier = try? r.readUInt8("Identifier"),
              let length = try? r.readUInt16("Length") else { return }
        let data = r.readRemaining()
        guard data.count == Int(length) else { return reject(identifier) }
        switch code {
        case L2CAPSignal.connectionParameterUpdateResponse:
            // A response we did not ask for, or for another identifier, is ignored (§4).
            guard let pending = pendingParameterRequest, pending.identifier == identifier, data.count == 2 else { return }
            pendingParameterRequest = nil
            let result = UInt16(data[0]) | UInt16(data[1]) << 8
            events.append(.connectionParameterUpdateAnswered(accepted: result == 0))
        case L2CAPSignal.commandReject:
            let reason = data.count >= 2 ? UInt16(data[0]) | UInt16(data[1]) << 8 : 0xFFFF
            if pendingParameterRequest?.identifier == identifier { pendingParameterRequest = nil }
            events.append(.commandRejectReceived(reason: reason))
        default:
            // Includes a Connection Parameter Update Request from the central: only the
            // peripheral may send one (§4.20).
            reject(identifier)
        }
    }

    private mutating func reject(_ identifier: UInt8) {
        var w = ByteWriter()
        w.write(L2CAPSignal.commandReject); w.write(identifier); w.write(UInt16(2)); w.write(L2CAPSignal.notUnderstood)
        outbox.append(frame(cid: L2CAPChannel.signaling, w.bytes))
    }
}
