import Bluetooth
import Clocks
import Wire

/// The GATT client for one connection: a queue of procedures over an ATT bearer with exactly
/// one request in flight (Core v5.4 Vol 3 Part F §3.3.2) and the 30 s transaction timeout.
///
/// Each procedure (Vol 3 Part G §4) is a small state machine in `GATTProcedure`; this type owns
/// the bearer rules: sequencing, matching responses to requests, timeouts, confirming
/// indications, and answering the peer's own client role.
public struct GATTClient: Sendable {
    public typealias RequestID = UInt64

    public enum Operation: Sendable, Equatable {
        case exchangeMTU(UInt16)
        case discoverPrimaryServices(BluetoothUUID?)
        case discoverCharacteristics(GATT.Service)
        case discoverDescriptors(start: UInt16, end: UInt16)
        /// Services, then characteristics, then descriptors: the whole database.
        case discoverDatabase
        /// Read a value, continuing with Read Blob when it fills the MTU (long read, §4.8.3).
        case read(handle: UInt16)
        case write(handle: UInt16, value: [UInt8])
        /// Write Command: no response, no transaction (§4.9.1). Sent in queue order.
        case writeWithoutResponse(handle: UInt16, value: [UInt8])
    }

    public enum Result: Sendable, Equatable {
        case mtu(Int)
        case services([GATT.Service])
        case characteristics([GATT.Characteristic])
        case descriptors([GATT.Descriptor])
        case database(GATT.Database)
        case value([UInt8])
        case written
        case failed(GATT.Failure)
    }

    public enum Output: Sendable, Equatable {
        /// An ATT PDU to send on CID 0x0004.
        case send([UInt8])
        case completed(RequestID, Result)
        case notification(handle: UInt16, value: [UInt8])
        case indication(handle: UInt16, value: [UInt8])
        /// The transaction timed out: the bearer is dead and the link should be dropped (§3.3.3).
        case bearerTimedOut
        case log(String)
    }

    public private(set) var mtu: Int = ATT.defaultMTU
    /// The MTU we offer; the effective MTU is min(ours, theirs) (§3.4.2).
    public let preferredMTU: UInt16
    private var queue: [(RequestID, Operation)] = []
    private var running: (id: RequestID, procedure: GATTProcedure, request: ATT.Request, deadline: MonotonicInstant)?
    public private(set) var isClosed = false

    public init(preferredMTU: UInt16 = 247) {
        self.preferredMTU = max(UInt16(ATT.defaultMTU), min(preferredMTU, UInt16(ATT.maximumMTU)))
    }

    public var nextDeadline: MonotonicInstant? { running?.deadline }
    public var isIdle: Bool { running == nil && queue.isEmpty }

    public mutating func enqueue(_ operation: Operation, id: RequestID, at now: MonotonicInstant) -> [Output] {
        guard !isClosed else { return [.completed(id, .failed(.bearerClosed))] }
        queue.append((id, operation))
        return pump(at: now)
    }

    /// Starts queued procedures until one needs a response.
    private mutating func pump(at now: MonotonicInstant) -> [Output] {
        var out: [Output] = []
        while running == nil, !queue.isEmpty {
            let (id, op) = queue.removeFirst()
            if case let .writeWithoutResponse(handle, value) = op {
                if value.count > mtu - 3 {
                    out.append(.completed(id, .failed(.valueTooLong(value.count))))
                } else {
                    out.append(.send(ATT.writeCommand(handle: handle, value: value)))
                    out.append(.completed(id, .written))
                }
                continue
            }
            var procedure = GATTProcedure(op, mtu: mtu)
            switch procedure.start() {
            case .request(let request):
                running = (id, procedure, request, now + ATT.transactionTimeout)
                out.append(.send(request.bytes))
            case .finished(let result):
                out.append(.completed(id, result))
            }
        }
        return out
    }

    /// Handles one ATT PDU from the peer.
    public mutating func receive(_ bytes: [UInt8], at now: MonotonicInstant) -> [Output] {
        // No PDU may be longer than ATT_MTU (Vol 3 Part F §3.2.8). The excess would otherwise
        // pass as part of a value: padding read as a heart rate.
        if bytes.count > mtu {
            let why = "ATT PDU 0x\(String(bytes[0], radix: 16)) of \(bytes.count) bytes exceeds ATT_MTU \(mtu)"
            if let running, ATT.Opcode.response(to: running.request.opcode) == bytes[0] || bytes[0] == ATT.Opcode.errorResponse {
                return finishRunning(.failed(.malformedResponse(why)), at: now, log: why)
            }
            return [.log("dropped \(why)")]
        }
        let pdu: ATT.InboundPDU
        do {
            pdu = try ATT.InboundPDU(bytes: bytes)
        } catch {
            // A malformed response still ends the transaction it answers, if its opcode says so.
            if let opcode = bytes.first, let running, ATT.Opcode.response(to: running.request.opcode) == opcode || opcode == ATT.Opcode.errorResponse {
                return finishRunning(.failed(.malformedResponse("\(error)")), at: now, log: "malformed ATT response: \(error)")
            }
            return [.log("dropped malformed ATT PDU \(Hex.encode(bytes.prefix(8), separator: " ")): \(error)")]
        }
        switch pdu {
        case let .notification(handle, value):
            return [.notification(handle: handle, value: value)]
        case let .indication(handle, value):
            // Confirm at once: the value is already delivered above, and a late confirmation
            // would stall every later indication from this server (§3.4.7.2).
            return [.indication(handle: handle, value: value), .send(ATT.confirmation)]
        case let .peerRequest(opcode, parameters):
            return answerPeerRequest(opcode: opcode, parameters: parameters)
        case .peerCommand:
            return []
        default:
            break
        }
        guard var current = running else {
            return [.log("ignored unsolicited ATT response 0x\(String(bytes[0], radix: 16)): no request outstanding")]
        }
        if case let .errorResponse(request, _, _) = pdu, request != current.request.opcode {
            return [.log("ignored ATT error response for opcode 0x\(String(request, radix: 16)); outstanding request is 0x\(String(current.request.opcode, radix: 16))")]
        }
        if case .errorResponse = pdu {} else if pdu.responseOpcode != ATT.Opcode.response(to: current.request.opcode) {
            return [.log("ignored out-of-order ATT response 0x\(String(bytes[0], radix: 16)) while waiting for the answer to 0x\(String(current.request.opcode, radix: 16))")]
        }
        if case .exchangeMTUResponse(let serverMTU) = pdu {
            mtu = max(ATT.defaultMTU, min(Int(preferredMTU), Int(serverMTU)))
        }
        switch current.procedure.receive(pdu, mtu: mtu) {
        case .request(let next):
            current.request = next
            current.deadline = now + ATT.transactionTimeout
            running = current
            return [.send(next.bytes)]
        case .finished(let result):
            return finishRunning(result, at: now, log: nil)
        }
    }

    private mutating func finishRunning(_ result: Result, at now: MonotonicInstant, log: String?) -> [Output] {
        guard let current = running else { return [] }
        running = nil
        var out: [Output] = log.map { [.log($0)] } ?? []
        out.append(.completed(current.id, result))
        out += pump(at: now)
        return out
    }

    public mutating func handleDeadline(at now: MonotonicInstant) -> [Output] {
        guard let current = running, now >= current.deadline else { return [] }
        running = nil
        isClosed = true
        var out: [Output] = [.log("ATT request 0x\(String(current.request.opcode, radix: 16)) got no response in 30 s"), .completed(current.id, .failed(.timedOut))]
        for (id, _) in queue { out.append(.completed(id, .failed(.bearerClosed))) }
        queue.removeAll()
        out.append(.bearerTimedOut)
        return out
    }

    /// Fails everything: the link is gone.
    public mutating func disconnected() -> [Output] {
        var out: [Output] = []
        if let current = running { out.append(.completed(current.id, .failed(.disconnected))) }
        for (id, _) in queue { out.append(.completed(id, .failed(.disconnected))) }
        running = nil
        queue.removeAll()
        isClosed = true
        return out
    }

    /// A central has no GATT database of interest to the peer; answer like an empty server
    /// so a peer that discovers us is not left waiting 30 s (§3.4.1.1 error semantics).
    private mutating func answerPeerRequest(opcode: UInt8, parameters: [UInt8]) -> [Output] {
        var r = ByteReader(parameters)
        switch opcode {
        case ATT.Opcode.exchangeMTURequest:
            if let clientMTU = try? r.readUInt16() {
                mtu = max(ATT.defaultMTU, min(Int(preferredMTU), Int(clientMTU)))
            }
            return [.send(ATT.exchangeMTUResponse(serverRxMTU: preferredMTU))]
        case ATT.Opcode.findInformationRequest, ATT.Opcode.findByTypeValueRequest,
             ATT.Opcode.readByTypeRequest, ATT.Opcode.readByGroupTypeRequest:
            let start = (try? r.readUInt16()) ?? 0
            return [.send(ATT.errorResponse(request: opcode, handle: start, error: .attributeNotFound))]
        case ATT.Opcode.readRequest, ATT.Opcode.readBlobRequest, ATT.Opcode.writeRequest, ATT.Opcode.prepareWriteRequest:
            let handle = (try? r.readUInt16()) ?? 0
            return [.send(ATT.errorResponse(request: opcode, handle: handle, error: .invalidHandle))]
        default:
            return [.send(ATT.errorResponse(request: opcode, handle: 0, error: .requestNotSupported))]
        }
    }
}
