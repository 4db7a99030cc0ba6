import Bluetooth
import Clocks
import Host
import Wire

/// `vigil gatt ADDRESS`: connect, discover the whole database, read every readable
/// characteristic and descriptor, and print it — the first tool for adding a transmitter type.
///
/// A sans-IO session: it is handed host events and drives the host (a value it borrows).
public struct GATTDump: Sendable {
    public enum State: Sendable, Equatable {
        case lookingForPeer(deadline: MonotonicInstant)
        case connecting
        case discovering(handle: UInt16)
        case reading(handle: UInt16)
        case securing(handle: UInt16)
        case done
        case failed(String)
    }

    public struct ReadTarget: Sendable, Equatable {
        var handle: UInt16
        var value: [UInt8]?
        var error: String?
    }

    public let address: Address
    public let pairIfNeeded: Bool
    public private(set) var state: State
    public private(set) var peer: DeviceAddress?
    public private(set) var database: GATT.Database?
    /// Values and errors by attribute handle.
    public private(set) var values: [UInt16: [UInt8]] = [:]
    public private(set) var errors: [UInt16: String] = [:]
    private var pendingReads: [UInt16] = []
    private var retriedAfterSecuring = false
    private var inFlight: GATTClient.RequestID?

    /// `addressType` skips the scan when the caller already knows it.
    public init(address: Address, addressType: AddressType?, pairIfNeeded: Bool, scanTimeout: Duration, at now: MonotonicInstant) {
        self.address = address
        self.pairIfNeeded = pairIfNeeded
        if let addressType {
            peer = DeviceAddress(address, type: addressType)
            state = .connecting
        } else {
            state = .lookingForPeer(deadline: now + scanTimeout)
        }
    }

    public var isFinished: Bool { state == .done || { if case .failed = state { true } else { false } }() }
    public var nextDeadline: MonotonicInstant? { if case .lookingForPeer(let d) = state { d } else { nil } }

    /// Call once the controller is ready.
    public mutating func start(host: inout Host, at now: MonotonicInstant) {
        if let peer, state == .connecting {
            host.connect(peer, at: now)
        } else {
            host.startScanning(active: true, at: now)
        }
    }

    public mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        if case .lookingForPeer(let d) = state, now >= d {
            host.stopScanning(at: now)
            state = .failed("\(address) was not seen advertising; is it on and in range? (or pass --address-type)")
        }
    }

    public mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        switch (state, event) {
        case (.lookingForPeer, .advertisement(let a)) where a.address.address == address:
            peer = a.address
            state = .connecting
            host.stopScanning(at: now)
            host.connect(a.address, at: now)
        case (.connecting, .connected(let handle, let p)) where p.address == address:
            state = .discovering(handle: handle)
            inFlight = host.gatt(.discoverDatabase, on: handle, at: now)
        case (.connecting, .connectionFailed(let p, let reason)) where p.address == address:
            state = .failed("could not connect to \(address): \(reason)")
        case (_, .disconnected(_, let p, let reason)) where p.address == address && !isFinished:
            state = .failed("\(address) disconnected: \(reason)")
        case (.discovering(let handle), .gatt(let h, let id, let result)) where h == handle && id == inFlight:
            switch result {
            case .database(let db):
                database = db
                pendingReads = Self.readableHandles(db)
                state = .reading(handle: handle)
                readNext(host: &host, handle: handle, at: now)
            case .failed(let failure):
                state = .failed("discovery failed: \(failure)")
            default:
                state = .failed("discovery returned an unexpected result")
            }
        case (.reading(let handle), .gatt(let h, let id, let result)) where h == handle && id == inFlight:
            let attribute = pendingReads.removeFirst()
            switch result {
            case .value(let v): values[attribute] = v
            case .failed(let failure) where failure.needsSecurity && pairIfNeeded && !retriedAfterSecuring:
                // Put it back and secure the link; the reads resume after encryption.
                pendingReads.insert(attribute, at: 0)
                retriedAfterSecuring = true
                state = .securing(handle: handle)
                host.secure(handle: handle, at: now)
                return
            case .failed(let failure): errors[attribute] = "\(failure)"
            default: break
            }
            readNext(host: &host, handle: handle, at: now)
        case (.securing(let handle), .encryptionChanged(let h, true, _)) where h == handle:
            state = .reading(handle: handle)
            readNext(host: &host, handle: handle, at: now)
        case (.securing(let handle), .pairingFailed(let h, let reason)) where h == handle,
             (.securing(let handle), .encryptionFailed(let h, let reason, _)) where h == handle:
            errors[pendingReads.first ?? 0] = "pairing failed: \(reason)"
            if !pendingReads.isEmpty { pendingReads.removeFirst() }
            state = .reading(handle: handle)
            readNext(host: &host, handle: handle, at: now)
        default:
            break
        }
    }

    private mutating func readNext(host: inout Host, handle: UInt16, at now: MonotonicInstant) {
        guard let next = pendingReads.first else {
            state = .done
            host.disconnect(handle: handle, at: now)
            return
        }
        inFlight = host.gatt(.read(handle: next), on: handle, at: now)
    }

    /// Readable characteristic values and the descriptors worth reading (all but CCCDs' peers
    /// care about: we read every descriptor, they are small).
    static func readableHandles(_ db: GATT.Database) -> [UInt16] {
        var handles: [UInt16] = []
        for entry in db.entries {
            for c in entry.characteristics {
                if c.properties.contains(.read) { handles.append(c.valueHandle) }
                handles += c.descriptors.map(\.handle)
            }
        }
        return handles
    }

    // MARK: output

    public func json() -> JSON {
        var services: [JSON] = []
        for entry in database?.entries ?? [] {
            var characteristics: [JSON] = []
            for c in entry.characteristics {
                var members: [(String, JSON)] = [
                    ("uuid", .string("\(c.uuid)")),
                    ("name", .string(AssignedNumbers.name(of: c.uuid) ?? "")),
                    ("handle", .int(Int64(c.declarationHandle))),
                    ("valueHandle", .int(Int64(c.valueHandle))),
                    ("properties", .array(c.properties.names.map { .string($0) })),
                ]
                if let v = values[c.valueHandle] {
                    members.append(("value", .string(Hex.encode(v))))
                    if let text = Self.printable(v) { members.append(("text", .string(text))) }
                }
                if let e = errors[c.valueHandle] { members.append(("error", .string(e))) }
                let descriptors: [JSON] = c.descriptors.map { d in
                    var m: [(String, JSON)] = [("uuid", .string("\(d.uuid)")), ("handle", .int(Int64(d.handle)))]
                    if let v = values[d.handle] { m.append(("value", .string(Hex.encode(v)))) }
                    if let e = errors[d.handle] { m.append(("error", .string(e))) }
                    return .object(m)
                }
                members.append(("descriptors", .array(descriptors)))
                characteristics.append(.object(members))
            }
            services.append(.object([
                ("uuid", .string("\(entry.service.uuid)")),
                ("name", .string(AssignedNumbers.name(of: entry.service.uuid) ?? "")),
                ("start", .int(Int64(entry.service.startHandle))),
                ("end", .int(Int64(entry.service.endHandle))),
                ("characteristics", .array(characteristics)),
            ]))
        }
        return .object([("address", .string("\(address)")), ("addressType", .string(peer.map { "\($0.type)" } ?? "")), ("services", .array(services))])
    }

    public func text() -> String {
        var lines: [String] = ["\(peer.map { "\($0)" } ?? "\(address)")"]
        func hex4(_ v: UInt16) -> String {
            let h = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: 4 - h.count) + h
        }
        for entry in database?.entries ?? [] {
            let s = entry.service
            lines.append("service \(s.uuid) \(AssignedNumbers.name(of: s.uuid) ?? "") [\(hex4(s.startHandle))-\(hex4(s.endHandle))]")
            for c in entry.characteristics {
                var line = "  characteristic \(c.uuid) \(AssignedNumbers.name(of: c.uuid) ?? "") value \(hex4(c.valueHandle)) (\(c.properties))"
                if let v = values[c.valueHandle] {
                    line += " = \(Hex.encode(v, separator: " "))"
                    if let text = Self.printable(v) { line += " \"\(text)\"" }
                }
                if let e = errors[c.valueHandle] { line += " ! \(e)" }
                lines.append(line)
                for d in c.descriptors {
                    var dl = "    descriptor \(d.uuid) \(AssignedNumbers.name(of: d.uuid) ?? "") \(hex4(d.handle))"
                    if let v = values[d.handle] { dl += " = \(Hex.encode(v, separator: " "))" }
                    lines.append(dl)
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The value as text when it is all printable UTF-8 (Device Information strings).
    static func printable(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
