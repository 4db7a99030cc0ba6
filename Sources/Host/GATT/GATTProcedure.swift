import Bluetooth
import Wire

/// One GATT client procedure (Core v5.4 Vol 3 Part G §4) as a state machine: it names the next
/// ATT request, or finishes with a result. The bearer rules live in `GATTClient`.
///
/// Every loop over handles must advance: a server that repeats or goes backwards (by bug or
/// malice) ends the procedure with a malformed-response failure instead of looping forever.
struct GATTProcedure: Sendable {
    enum Step: Sendable {
        case request(ATT.Request)
        case finished(GATTClient.Result)
    }

    private enum State: Sendable {
        case exchangingMTU(UInt16)
        case discoveringServices(uuid: BluetoothUUID?, next: UInt16, found: [GATT.Service])
        case discoveringCharacteristics(GATT.Service, next: UInt16, found: [GATT.Characteristic])
        case discoveringDescriptors(end: UInt16, next: UInt16, found: [GATT.Descriptor])
        case discoveringDatabase(DatabaseDiscovery)
        case reading(handle: UInt16, value: [UInt8])
        case writing(handle: UInt16, value: [UInt8])
    }

    /// Progress through a whole-database discovery.
    private struct DatabaseDiscovery: Sendable {
        var services: [GATT.Service] = []
        var entries: [GATT.Database.Entry] = []
        var phase: Phase = .services(next: 1)
        enum Phase: Sendable {
            case services(next: UInt16)
            case characteristics(service: Int, next: UInt16, found: [GATT.Characteristic])
            case descriptors(service: Int, characteristic: Int, next: UInt16)
        }
    }

    /// Bounds that a hostile server cannot push us past.
    static let maximumItems = 1024

    private var state: State
    private var mtu: Int

    init(_ operation: GATTClient.Operation, mtu: Int) {
        self.mtu = mtu
        switch operation {
        case .exchangeMTU(let ours): state = .exchangingMTU(ours)
        case .discoverPrimaryServices(let uuid): state = .discoveringServices(uuid: uuid, next: 1, found: [])
        case .discoverCharacteristics(let service): state = .discoveringCharacteristics(service, next: service.startHandle, found: [])
        case let .discoverDescriptors(start, end): state = .discoveringDescriptors(end: end, next: start, found: [])
        case .discoverDatabase: state = .discoveringDatabase(DatabaseDiscovery())
        case .read(let handle): state = .reading(handle: handle, value: [])
        case let .write(handle, value): state = .writing(handle: handle, value: value)
        case .writeWithoutResponse: preconditionFailure("write without response needs no procedure")
        }
    }

    mutating func start() -> Step {
        switch state {
        case .exchangingMTU(let ours): return .request(.exchangeMTU(clientRxMTU: ours))
        case let .discoveringServices(uuid, next, _): return .request(Self.serviceRequest(uuid: uuid, from: next))
        case let .discoveringCharacteristics(service, next, _):
            return .request(.readByType(start: next, end: service.endHandle, type: GATT.UUIDs.characteristic))
        case let .discoveringDescriptors(end, next, _):
            return next > end || next == 0 ? .finished(.descriptors([])) : .request(.findInformation(start: next, end: end))
        case .discoveringDatabase: return .request(Self.serviceRequest(uuid: nil, from: 1))
        case .reading(let handle, _): return .request(.read(handle: handle))
        case let .writing(handle, value):
            guard value.count <= mtu - 3 else { return .finished(.failed(.valueTooLong(value.count))) }
            return .request(.write(handle: handle, value: value))
        }
    }

    private static func serviceRequest(uuid: BluetoothUUID?, from start: UInt16) -> ATT.Request {
        if let uuid {
            return .findByTypeValue(start: start, end: 0xFFFF, type: 0x2800, value: uuid.wireBytes)
        }
        return .readByGroupType(start: start, end: 0xFFFF, type: GATT.UUIDs.primaryService)
    }

    mutating func receive(_ pdu: ATT.InboundPDU, mtu: Int) -> Step {
        self.mtu = mtu
        do {
            return try advance(pdu)
        } catch let failure {
            return .finished(.failed(failure))
        }
    }

    private mutating func advance(_ pdu: ATT.InboundPDU) throws(GATT.Failure) -> Step {
        switch state {
        case .exchangingMTU:
            if case .errorResponse(_, _, .requestNotSupported) = pdu { return .finished(.mtu(ATT.defaultMTU)) }
            if case .errorResponse(_, let handle, let code) = pdu { throw .attributeError(code, handle: handle) }
            return .finished(.mtu(mtu))

        case .discoveringServices(let uuid, let next, var found):
            guard let more = try Self.services(from: pdu, uuid: uuid, after: next) else { return .finished(.services(found)) }
            found += more
            guard let last = more.last, last.endHandle < 0xFFFF, found.count < Self.maximumItems else { return .finished(.services(found)) }
            state = .discoveringServices(uuid: uuid, next: last.endHandle + 1, found: found)
            return .request(Self.serviceRequest(uuid: uuid, from: last.endHandle + 1))

        case .discoveringCharacteristics(let service, let next, var found):
            guard let more = try Self.characteristics(from: pdu, after: next, service: service) else {
                return .finished(.characteristics(Self.closingRanges(found, serviceEnd: service.endHandle)))
            }
            found += more
            let resume = more.last!.declarationHandle &+ 1
            guard resume > more.last!.declarationHandle, resume <= service.endHandle, found.count < Self.maximumItems else {
                return .finished(.characteristics(Self.closingRanges(found, serviceEnd: service.endHandle)))
            }
            state = .discoveringCharacteristics(service, next: resume, found: found)
            return .request(.readByType(start: resume, end: service.endHandle, type: GATT.UUIDs.characteristic))

        case .discoveringDescriptors(let end, let next, var found):
            guard let more = try Self.descriptors(from: pdu, after: next, end: end) else { return .finished(.descriptors(found)) }
            found += more
            let last = more.last!.handle
            guard last < end, found.count < Self.maximumItems else { return .finished(.descriptors(found)) }
            state = .discoveringDescriptors(end: end, next: last + 1, found: found)
            return .request(.findInformation(start: last + 1, end: end))

        case .discoveringDatabase(var discovery):
            let step = try advanceDatabase(&discovery, pdu)
            state = .discoveringDatabase(discovery)
            return step

        case .reading(let handle, var value):
            switch pdu {
            case .readResponse(let bytes), .readBlobResponse(let bytes):
                value += bytes
                // A response that fills the MTU may have more behind it (§4.8.3).
                if bytes.count == mtu - 1, value.count < ATT.maximumAttributeValueLength {
                    state = .reading(handle: handle, value: value)
                    return .request(.readBlob(handle: handle, offset: UInt16(value.count)))
                }
                return .finished(.value(value))
            case .errorResponse(ATT.Opcode.readBlobRequest, _, .attributeNotLong),
                 .errorResponse(ATT.Opcode.readBlobRequest, _, .invalidOffset):
                return .finished(.value(value))
            case let .errorResponse(_, h, code): throw .attributeError(code, handle: h)
            default: throw .malformedResponse("unexpected PDU while reading")
            }

        case .writing:
            switch pdu {
            case .writeResponse: return .finished(.written)
            case let .errorResponse(_, h, code): throw .attributeError(code, handle: h)
            default: throw .malformedResponse("unexpected PDU while writing")
            }
        }
    }

    private mutating func advanceDatabase(_ d: inout DatabaseDiscovery, _ pdu: ATT.InboundPDU) throws(GATT.Failure) -> Step {
        switch d.phase {
        case .services(let next):
            if let more = try Self.services(from: pdu, uuid: nil, after: next) {
                d.services += more
                if let last = more.last, last.endHandle < 0xFFFF, d.services.count < Self.maximumItems {
                    d.phase = .services(next: last.endHandle + 1)
                    return .request(Self.serviceRequest(uuid: nil, from: last.endHandle + 1))
                }
            }
            return nextService(&d, after: -1)

        case .characteristics(let index, let next, var found):
            let service = d.services[index]
            if let more = try Self.characteristics(from: pdu, after: next, service: service) {
                found += more
                let resume = more.last!.declarationHandle &+ 1
                if resume > more.last!.declarationHandle, resume <= service.endHandle, found.count < Self.maximumItems {
                    d.phase = .characteristics(service: index, next: resume, found: found)
                    return .request(.readByType(start: resume, end: service.endHandle, type: GATT.UUIDs.characteristic))
                }
            }
            d.entries.append(GATT.Database.Entry(service: service, characteristics: Self.closingRanges(found, serviceEnd: service.endHandle)))
            return nextDescriptorRange(&d, service: index, after: -1)

        case .descriptors(let serviceIndex, let charIndex, let next):
            let entryIndex = d.entries.count - 1
            let characteristic = d.entries[entryIndex].characteristics[charIndex]
            if let more = try Self.descriptors(from: pdu, after: next, end: characteristic.endHandle) {
                d.entries[entryIndex].characteristics[charIndex].descriptors += more
                let last = more.last!.handle
                if last < characteristic.endHandle, d.entries[entryIndex].characteristics[charIndex].descriptors.count < Self.maximumItems {
                    d.phase = .descriptors(service: serviceIndex, characteristic: charIndex, next: last + 1)
                    return .request(.findInformation(start: last + 1, end: characteristic.endHandle))
                }
            }
            return nextDescriptorRange(&d, service: serviceIndex, after: charIndex)
        }
    }

    private func nextService(_ d: inout DatabaseDiscovery, after index: Int) -> Step {
        let i = index + 1
        guard i < d.services.count else { return .finished(.database(GATT.Database(entries: d.entries))) }
        let service = d.services[i]
        d.phase = .characteristics(service: i, next: service.startHandle, found: [])
        return .request(.readByType(start: service.startHandle, end: service.endHandle, type: GATT.UUIDs.characteristic))
    }

    /// Descriptors sit between a characteristic's value handle and its end handle; skip
    /// characteristics with no room for any.
    private func nextDescriptorRange(_ d: inout DatabaseDiscovery, service: Int, after index: Int) -> Step {
        let characteristics = d.entries[d.entries.count - 1].characteristics
        var i = index + 1
        while i < characteristics.count {
            let c = characteristics[i]
            if c.valueHandle < c.endHandle {
                d.phase = .descriptors(service: service, characteristic: i, next: c.valueHandle + 1)
                return .request(.findInformation(start: c.valueHandle + 1, end: c.endHandle))
            }
            i += 1
        }
        return nextService(&d, after: service)
    }

    // MARK: decoding discovery responses

    /// Services from a discovery response; nil when the server says there are no more.
    private static func services(from pdu: ATT.InboundPDU, uuid: BluetoothUUID?, after next: UInt16) throws(GATT.Failure) -> [GATT.Service]? {
        switch pdu {
        case .errorResponse(_, _, .attributeNotFound): return nil
        case let .errorResponse(_, h, code): throw .attributeError(code, handle: h)
        case .readByGroupTypeResponse(let groups) where uuid == nil:
            var out: [GATT.Service] = []
            var floor = next
            for g in groups {
                guard g.start >= floor, g.end >= g.start, let serviceUUID = BluetoothUUID(wireBytes: g.value), g.value.count != 4 else {
                    throw .malformedResponse("service group \(g.start)-\(g.end) out of order or with a bad UUID")
                }
                out.append(GATT.Service(uuid: serviceUUID, startHandle: g.start, endHandle: g.end))
                floor = g.end &+ 1
            }
            return out
        case .findByTypeValueResponse(let ranges) where uuid != nil:
            var out: [GATT.Service] = []
            var floor = next
            for r in ranges {
                guard r.start >= floor, r.end >= r.start else { throw .malformedResponse("service range \(r.start)-\(r.end) out of order") }
                out.append(GATT.Service(uuid: uuid!, startHandle: r.start, endHandle: r.end))
                floor = r.end &+ 1
            }
            return out
        default:
            throw .malformedResponse("unexpected PDU during service discovery")
        }
    }

    /// Characteristic declarations: properties u8 · value handle u16 · UUID (2 or 16) (§3.3.1).
    private static func characteristics(from pdu: ATT.InboundPDU, after next: UInt16, service: GATT.Service) throws(GATT.Failure) -> [GATT.Characteristic]? {
        switch pdu {
        case .errorResponse(_, _, .attributeNotFound): return nil
        case let .errorResponse(_, h, code): throw .attributeError(code, handle: h)
        case .readByTypeResponse(let entries):
            var out: [GATT.Characteristic] = []
            var floor = next
            for e in entries {
                var r = ByteReader(e.value)
                guard e.handle >= floor, e.handle <= service.endHandle,
                      let props = try? r.readUInt8(), let valueHandle = try? r.readUInt16(),
                      valueHandle > e.handle, let uuid = BluetoothUUID(wireBytes: r.readRemaining()), e.value.count == 5 || e.value.count == 19
                else { throw .malformedResponse("bad characteristic declaration at handle \(e.handle)") }
                out.append(GATT.Characteristic(uuid: uuid, declarationHandle: e.handle, valueHandle: valueHandle, properties: GATT.Properties(rawValue: props), endHandle: service.endHandle))
                floor = e.handle &+ 1
            }
            return out
        default:
            throw .malformedResponse("unexpected PDU during characteristic discovery")
        }
    }

    private static func descriptors(from pdu: ATT.InboundPDU, after next: UInt16, end: UInt16) throws(GATT.Failure) -> [GATT.Descriptor]? {
        switch pdu {
        case .errorResponse(_, _, .attributeNotFound): return nil
        case let .errorResponse(_, h, code): throw .attributeError(code, handle: h)
        case .findInformationResponse(let entries):
            var out: [GATT.Descriptor] = []
            var floor = next
            for e in entries {
                guard e.handle >= floor, e.handle <= end else { throw .malformedResponse("descriptor handle \(e.handle) out of order") }
                out.append(GATT.Descriptor(uuid: e.uuid, handle: e.handle))
                floor = e.handle &+ 1
            }
            return out
        default:
            throw .malformedResponse("unexpected PDU during descriptor discovery")
        }
    }

    /// A characteristic ends where the next declaration begins (§3.3.3 note), the last one at
    /// the service end.
    private static func closingRanges(_ list: [GATT.Characteristic], serviceEnd: UInt16) -> [GATT.Characteristic] {
        var out = list
        for i in out.indices {
            out[i].endHandle = i + 1 < out.count ? out[i + 1].declarationHandle - 1 : serviceEnd
        }
        return out
    }
}
