import Bluetooth
import Clocks
import Wire

/// ATT opcodes and error codes a server handles (Core v5.4 Vol 3 Part F §3.4.8, §3.4.1.1).
enum ATTOpcode {
    static let errorResponse: UInt8 = 0x01
    static let exchangeMTURequest: UInt8 = 0x02
    static let exchangeMTUResponse: UInt8 = 0x03
    static let findInformationRequest: UInt8 = 0x04
    static let findInformationResponse: UInt8 = 0x05
    static let findByTypeValueRequest: UInt8 = 0x06
    static let findByTypeValueResponse: UInt8 = 0x07
    static let readByTypeRequest: UInt8 = 0x08
    static let readByTypeResponse: UInt8 = 0x09
    static let readRequest: UInt8 = 0x0A
    static let readResponse: UInt8 = 0x0B
    static let readBlobRequest: UInt8 = 0x0C
    static let readBlobResponse: UInt8 = 0x0D
    static let readByGroupTypeRequest: UInt8 = 0x10
    static let readByGroupTypeResponse: UInt8 = 0x11
    static let writeRequest: UInt8 = 0x12
    static let writeResponse: UInt8 = 0x13
    static let handleValueNotification: UInt8 = 0x1B
    static let handleValueIndication: UInt8 = 0x1D
    static let handleValueConfirmation: UInt8 = 0x1E
    static let writeCommand: UInt8 = 0x52
    /// Bit 6 of an opcode marks a command: never answered, not even with an error (§3.3.1).
    static let commandFlag: UInt8 = 0x40
}

enum ATTError {
    static let invalidHandle: UInt8 = 0x01
    static let readNotPermitted: UInt8 = 0x02
    static let writeNotPermitted: UInt8 = 0x03
    static let invalidPDU: UInt8 = 0x04
    static let insufficientAuthentication: UInt8 = 0x05
    static let requestNotSupported: UInt8 = 0x06
    static let invalidOffset: UInt8 = 0x07
    static let attributeNotFound: UInt8 = 0x0A
    static let invalidAttributeValueLength: UInt8 = 0x0D
    static let insufficientEncryption: UInt8 = 0x0F
    static let unsupportedGroupType: UInt8 = 0x10
}

/// Misbehaviour a test can switch on in a simulated peripheral's ATT server.
public struct HostileATTBehaviour: Sendable, Equatable {
    /// Requests are swallowed: the central's 30 s ATT transaction timer must fire.
    public var ignoresRequests = false
    /// Every response is sent twice: the second answers a request never sent.
    public var duplicatesResponses = false
    /// Values are not cut to the MTU and are padded 10 bytes past it, breaking Vol 3 Part F §3.4.4.4/§3.4.7.1.
    public var sendsOversizeValues = false
    /// Sends notifications of the first notifying characteristic this often, subscribed or not.
    public var notificationFloodInterval: Duration?
    public init() {}
}

/// The server side of one ATT bearer (Core v5.4 Vol 3 Part F) over a `GATTDatabase`.
///
/// Takes ATT PDUs (the CID 0x0004 payload) and returns the PDUs to send back.
struct ATTServer: Sendable {
    /// What the link layer knows about security, for the permission checks of Vol 3 Part C §10.3.1.
    struct LinkSecurity: Sendable {
        var isEncrypted: Bool
        /// Whether this peripheral holds a key for the central (so it could encrypt).
        var hasKey: Bool
    }

    var database: GATTDatabase
    let serverMTU: Int
    private(set) var mtu = 23
    var hostile = HostileATTBehaviour()
    /// CCCD values by characteristic index (bit 0 notifications, bit 1 indications).
    private(set) var cccd: [Int: UInt16] = [:]
    private var nextUpdate: [Int: MonotonicInstant] = [:]
    private var nextFlood: MonotonicInstant?
    /// An indication awaiting its confirmation, and the 30 s transaction deadline (§3.3.3).
    private(set) var indicationInFlight: (handle: UInt16, deadline: MonotonicInstant)?
    private var queuedIndications: [(handle: UInt16, value: [UInt8])] = []
    /// Set when an indication was never confirmed: per §3.3.3 no more PDUs go on this bearer.
    private(set) var bearerTimedOut = false
    /// Writes accepted, in order (for tests and the demo log).
    private(set) var writes: [(handle: UInt16, value: [UInt8])] = []
    private(set) var requestsReceived = 0
    private(set) var unexpectedConfirmations = 0

    init(database: GATTDatabase, serverMTU: Int = 247) {
        self.database = database
        self.serverMTU = max(23, serverMTU)
    }

    // MARK: Requests

    mutating func receive(_ pdu: [UInt8], link: LinkSecurity, at now: MonotonicInstant) -> [[UInt8]] {
        guard let opcode = pdu.first, !bearerTimedOut else { return [] }
        if opcode == ATTOpcode.handleValueConfirmation {
            if indicationInFlight == nil { unexpectedConfirmations += 1 }
            indicationInFlight = nil
            return sendNextIndication(at: now)
        }
        let isCommand = opcode & ATTOpcode.commandFlag != 0
        if !isCommand { requestsReceived += 1 }
        if hostile.ignoresRequests { return [] }
        var r = ByteReader(pdu)
        _ = try? r.readUInt8("opcode")
        let response: [UInt8]?
        do {
            response = try respond(to: opcode, &r, link: link, at: now)
        } catch {
            // A malformed request gets Invalid PDU; a malformed command is dropped (§3.4.1.1, §3.3.1).
            response = isCommand ? nil : errorResponse(opcode, 0, ATTError.invalidPDU)
        }
        guard let response else { return [] }
        return hostile.duplicatesResponses ? [response, response] : [response]
    }

    private func errorResponse(_ request: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [ATTOpcode.errorResponse, request, UInt8(truncatingIfNeeded: handle), UInt8(handle >> 8), code]
    }

    private mutating func respond(to opcode: UInt8, _ r: inout ByteReader, link: LinkSecurity, at now: MonotonicInstant) throws(WireError) -> [UInt8]? {
        switch opcode {
        case ATTOpcode.exchangeMTURequest:
            let clientMTU = Int(try r.readUInt16("Client Rx MTU"))
            try r.expectEnd("Exchange MTU Request")
            // The effective MTU is the smaller of the two Rx MTUs, never below 23 (§3.4.2.2).
            mtu = max(23, min(clientMTU, serverMTU))
            return [ATTOpcode.exchangeMTUResponse, UInt8(truncatingIfNeeded: serverMTU), UInt8(serverMTU >> 8)]
        case ATTOpcode.findInformationRequest:
            let (start, end) = try readRange(&r, "Find Information Request")
            if let error = checkRange(opcode, start, end) { return error }
            return findInformation(start, end)
        case ATTOpcode.findByTypeValueRequest:
            let (start, end) = try readRange(&r, nil)
            let type = try r.readUInt16("Attribute Type")
            let value = r.readRemaining()
            if let error = checkRange(opcode, start, end) { return error }
            return findByTypeValue(start, end, BluetoothUUID(type), value)
        case ATTOpcode.readByTypeRequest, ATTOpcode.readByGroupTypeRequest:
            let (start, end) = try readRange(&r, nil)
            let uuidBytes = r.readRemaining()
            guard uuidBytes.count == 2 || uuidBytes.count == 16, let type = BluetoothUUID(wireBytes: uuidBytes) else {
                throw .invalidValue(field: "Attribute Type length", value: uuidBytes.count)
            }
            if let error = checkRange(opcode, start, end) { return error }
            return opcode == ATTOpcode.readByTypeRequest
                ? readByType(start, end, type, link: link, at: now)
                : readByGroupType(start, end, type)
        case ATTOpcode.readRequest, ATTOpcode.readBlobRequest:
            let handle = try r.readUInt16("Attribute Handle")
            let offset = opcode == ATTOpcode.readBlobRequest ? Int(try r.readUInt16("Value Offset")) : 0
            try r.expectEnd("Read Request")
            switch readValue(handle, link: link, at: now) {
            case .failure(let code): return errorResponse(opcode, handle, code.code)
            case .success(let value):
                guard offset <= value.count else { return errorResponse(opcode, handle, ATTError.invalidOffset) }
                return [opcode + 1] + fit(Array(value[offset...]), room: mtu - 1)
            }
        case ATTOpcode.writeRequest, ATTOpcode.writeCommand:
            let handle = try r.readUInt16("Attribute Handle")
            let value = r.readRemaining()
            let code = write(handle, value, link: link, at: now)
            if opcode == ATTOpcode.writeCommand { return nil }
            return code.map { errorResponse(opcode, handle, $0) } ?? [ATTOpcode.writeResponse]
        default:
            // Commands we do not know are ignored; requests get Request Not Supported (§3.4.1.1).
            return opcode & ATTOpcode.commandFlag != 0 ? nil : errorResponse(opcode, 0, ATTError.requestNotSupported)
        }
    }

    private func readRange(_ r: inout ByteReader, _ whole: StaticString?) throws(WireError) -> (UInt16, UInt16) {
        let start = try r.readUInt16("Starting Handle")
        let end = try r.readUInt16("Ending Handle")
        if let whole { try r.expectEnd(whole) }
        return (start, end)
    }

    /// Starting handle 0 or greater than the ending handle is Invalid Handle (§3.4.3.1 et al.).
    private func checkRange(_ opcode: UInt8, _ start: UInt16, _ end: UInt16) -> [UInt8]? {
        start == 0 || start > end ? errorResponse(opcode, start, ATTError.invalidHandle) : nil
    }

    /// Cuts a value to the room the MTU leaves, unless a test wants the peer to misbehave.
    private func fit(_ value: [UInt8], room: Int) -> [UInt8] {
        if hostile.sendsOversizeValues { return value + [UInt8](repeating: 0xEE, count: max(0, room + 10 - value.count)) }
        return Array(value.prefix(max(0, room)))
    }

    // MARK: Discovery

    private func findInformation(_ start: UInt16, _ end: UInt16) -> [UInt8] {
        var entries: [UInt8] = []
        var format: UInt8 = 0
        for a in database.attributes(in: start, end) {
            let uuid = a.type.wireBytes
            let thisFormat: UInt8 = uuid.count == 2 ? 1 : 2
            if format == 0 { format = thisFormat }
            guard thisFormat == format, 2 + entries.count + 2 + uuid.count <= mtu else { break }
            entries += [UInt8(truncatingIfNeeded: a.handle), UInt8(a.handle >> 8)] + uuid
        }
        if entries.isEmpty { return errorResponse(ATTOpcode.findInformationRequest, start, ATTError.attributeNotFound) }
        return [ATTOpcode.findInformationResponse, format] + entries
    }

    private func findByTypeValue(_ start: UInt16, _ end: UInt16, _ type: BluetoothUUID, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [ATTOpcode.findByTypeValueResponse]
        for a in database.attributes(in: start, end) where a.type == type && a.fixedValue == value {
            guard out.count + 4 <= mtu else { break }
            // Group end: the service's last handle for a service declaration, else the handle itself.
            let groupEnd: UInt16 = if case .serviceDeclaration(let e) = a.role { e } else { a.handle }
            out += [UInt8(truncatingIfNeeded: a.handle), UInt8(a.handle >> 8), UInt8(truncatingIfNeeded: groupEnd), UInt8(groupEnd >> 8)]
        }
        return out.count == 1 ? errorResponse(ATTOpcode.findByTypeValueRequest, start, ATTError.attributeNotFound) : out
    }

    private func readByType(_ start: UInt16, _ end: UInt16, _ type: BluetoothUUID, link: LinkSecurity, at now: MonotonicInstant) -> [UInt8] {
        var entries: [UInt8] = []
        var entryLength = 0
        // Each value is cut to min(253, MTU − 4) and all entries share the first one's length (§3.4.4.2).
        let maxValue = min(253, mtu - 4)
        for a in database.attributes(in: start, end) where a.type == type {
            let value: [UInt8]
            switch readValue(a.handle, link: link, at: now) {
            case .failure(let code):
                if entries.isEmpty { return errorResponse(ATTOpcode.readByTypeRequest, a.handle, code.code) }
                return [ATTOpcode.readByTypeResponse, UInt8(entryLength)] + entries
            case .success(let v): value = Array(v.prefix(maxValue))
            }
            if entryLength == 0 { entryLength = 2 + value.count }
            guard 2 + value.count == entryLength, 2 + entries.count + entryLength <= mtu else { break }
            entries += [UInt8(truncatingIfNeeded: a.handle), UInt8(a.handle >> 8)] + value
        }
        if entries.isEmpty { return errorResponse(ATTOpcode.readByTypeRequest, start, ATTError.attributeNotFound) }
        return [ATTOpcode.readByTypeResponse, UInt8(entryLength)] + entries
    }

    private func readByGroupType(_ start: UInt16, _ end: UInt16, _ type: BluetoothUUID) -> [UInt8] {
        // Only services are grouping types in GATT (Vol 3 Part G §2.5.3).
        guard type == BluetoothUUID(GATTDatabase.Declaration.primaryService.rawValue)
            || type == BluetoothUUID(GATTDatabase.Declaration.secondaryService.rawValue) else {
            return errorResponse(ATTOpcode.readByGroupTypeRequest, start, ATTError.unsupportedGroupType)
        }
        var entries: [UInt8] = []
        var entryLength = 0
        for a in database.attributes(in: start, end) where a.type == type {
            guard case .serviceDeclaration(let groupEnd) = a.role else { continue }
            let length = 4 + a.fixedValue.count
            if entryLength == 0 { entryLength = length }
            guard length == entryLength, 2 + entries.count + length <= mtu else { break }
            entries += [UInt8(truncatingIfNeeded: a.handle), UInt8(a.handle >> 8), UInt8(truncatingIfNeeded: groupEnd), UInt8(groupEnd >> 8)] + a.fixedValue
        }
        if entries.isEmpty { return errorResponse(ATTOpcode.readByGroupTypeRequest, start, ATTError.attributeNotFound) }
        return [ATTOpcode.readByGroupTypeResponse, UInt8(entryLength)] + entries
    }

    // MARK: Values

    private func securityError(_ access: SimulatedAccess, _ link: LinkSecurity) -> UInt8? {
        guard access == .encryptionRequired, !link.isEncrypted else { return nil }
        return link.hasKey ? ATTError.insufficientEncryption : ATTError.insufficientAuthentication
    }

    func readValue(_ handle: UInt16, link: LinkSecurity, at now: MonotonicInstant) -> Result<[UInt8], ATTErrorCode> {
        guard let a = database.attribute(handle) else { return .failure(ATTErrorCode(ATTError.invalidHandle)) }
        switch a.role {
        case .characteristicValue(let index):
            let c = database.characteristics[index].definition
            guard c.properties.contains(.read) else { return .failure(ATTErrorCode(ATTError.readNotPermitted)) }
            if let code = securityError(c.access, link) { return .failure(ATTErrorCode(code)) }
            return .success(database.currentValue(of: index, at: now))
        case .cccd(let index):
            let v = cccd[index] ?? 0
            return .success([UInt8(truncatingIfNeeded: v), UInt8(v >> 8)])
        default:
            return .success(a.fixedValue)
        }
    }

    /// Applies a write; returns the ATT error code, or nil when accepted.
    private mutating func write(_ handle: UInt16, _ value: [UInt8], link: LinkSecurity, at now: MonotonicInstant) -> UInt8? {
        guard let a = database.attribute(handle) else { return ATTError.invalidHandle }
        switch a.role {
        case .characteristicValue(let index):
            let c = database.characteristics[index].definition
            guard !c.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else { return ATTError.writeNotPermitted }
            if let code = securityError(c.access, link) { return code }
            if let code = c.writeHandler?(value) { return code }
            database.characteristics[index].storedValue = value
        case .cccd(let index):
            let c = database.characteristics[index].definition
            if let code = securityError(c.cccdAccess, link) { return code }
            guard value.count == 2 else { return ATTError.invalidAttributeValueLength }
            // Bits the properties do not offer are kept clear (Vol 3 Part G §3.3.3.3).
            var bits = UInt16(value[0]) | UInt16(value[1]) << 8
            if !c.properties.contains(.notify) { bits &= ~1 }
            if !c.properties.contains(.indicate) { bits &= ~2 }
            cccd[index] = bits & 0b11
            if bits & 0b11 != 0, let interval = c.updateInterval {
                if nextUpdate[index] == nil { nextUpdate[index] = now + interval }
            } else {
                nextUpdate[index] = nil
            }
        case .descriptor(let isWritable):
            guard isWritable else { return ATTError.writeNotPermitted }
        default:
            return ATTError.writeNotPermitted
        }
        writes.append((handle, value))
        return nil
    }

    // MARK: Server-initiated

    /// Sends `value` to the subscribed central: a notification, or an indication queued behind
    /// the one awaiting confirmation (only one may be outstanding, §3.4.7.2).
    mutating func push(characteristic index: Int, value: [UInt8], at now: MonotonicInstant) -> [[UInt8]] {
        guard !bearerTimedOut else { return [] }
        let bits = cccd[index] ?? 0
        let handle = database.characteristics[index].valueHandle
        var out: [[UInt8]] = []
        if bits & 1 != 0 {
            out.append([ATTOpcode.handleValueNotification, UInt8(truncatingIfNeeded: handle), UInt8(handle >> 8)] + fit(value, room: mtu - 3))
        }
        if bits & 2 != 0 {
            queuedIndications.append((handle, value))
            out += sendNextIndication(at: now)
        }
        return out
    }

    private mutating func sendNextIndication(at now: MonotonicInstant) -> [[UInt8]] {
        guard indicationInFlight == nil, !queuedIndications.isEmpty else { return [] }
        let (handle, value) = queuedIndications.removeFirst()
        indicationInFlight = (handle, now + .seconds(30))
        return [[ATTOpcode.handleValueIndication, UInt8(truncatingIfNeeded: handle), UInt8(handle >> 8)] + fit(value, room: mtu - 3)]
    }

    mutating func setFlood(_ interval: Duration?, at now: MonotonicInstant) {
        hostile.notificationFloodInterval = interval
        nextFlood = interval.map { now + $0 }
    }

    var nextDeadline: MonotonicInstant? {
        bearerTimedOut ? nil : earliest(earliest(nextUpdate.values.map { Optional($0) }), indicationInFlight?.deadline, nextFlood)
    }

    mutating func handleDeadline(at now: MonotonicInstant) -> [[UInt8]] {
        guard !bearerTimedOut else { return [] }
        if let pending = indicationInFlight, pending.deadline <= now {
            bearerTimedOut = true
            return []
        }
        var out: [[UInt8]] = []
        for (index, due) in nextUpdate.sorted(by: { $0.key < $1.key }) where due <= now {
            guard let interval = database.characteristics[index].definition.updateInterval else { continue }
            out += push(characteristic: index, value: database.currentValue(of: index, at: due), at: now)
            nextUpdate[index] = due + interval
        }
        if let due = nextFlood, due <= now, let interval = hostile.notificationFloodInterval,
           let index = database.characteristics.firstIndex(where: { $0.definition.properties.contains(.notify) }) {
            let handle = database.characteristics[index].valueHandle
            out.append([ATTOpcode.handleValueNotification, UInt8(truncatingIfNeeded: handle), UInt8(handle >> 8)] + fit(database.currentValue(of: index, at: now), room: mtu - 3))
            nextFlood = due + interval
        }
        return out
    }
}

/// An ATT error code as a typed failure.
struct ATTErrorCode: Error, Equatable {
    var code: UInt8
    init(_ code: UInt8) { self.code = code }
}
