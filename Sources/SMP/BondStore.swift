import Bluetooth
import Clocks
import Wire

extension SMP {
    /// The bonds Vigil holds, in memory, with a line-oriented text form for the file the
    /// platform layer writes (atomically, mode 0600; no I/O here).
    ///
    /// Format, version 1: a header line `vigil-bonds 1`, then one bond per line as
    /// space-separated `key=value` fields; `#` lines and blank lines are ignored:
    /// ```
    /// vigil-bonds 1
    /// peer=C0:11:22:33:44:55/random identity=00:1B:DC:01:02:03/public irk=<32 hex> ltk=<32 hex> ediv=1234 rand=0011223344556677 keysize=16 sc=1 auth=0 csrk=- created=1795350000000000
    /// ```
    /// Keys are hex in wire order (as HCI takes them); `-` marks an absent optional field;
    /// EDIV and Rand are hex numbers, `created` is microseconds since the Unix epoch. Unknown
    /// keys are skipped so a newer writer does not lose every bond to an older reader.
    public struct BondStore: Sendable, Equatable {
        public static let header = "vigil-bonds 1"

        /// Bonds by identity (`Bond.identity`): a peer using resolvable private addresses keeps
        /// one entry however often its address changes.
        public private(set) var bonds: [DeviceAddress: Bond] = [:]

        public init() {}

        /// Stores `bond`, stamped with its creation time, replacing any bond for the same
        /// identity (re-pairing supersedes the old keys).
        public mutating func insert(_ bond: Bond, created: WallClockTime) {
            var bond = bond
            bond.created = created
            bonds[bond.identity] = bond
        }

        @discardableResult
        public mutating func remove(_ identity: DeviceAddress) -> Bond? {
            bonds.removeValue(forKey: identity)
        }

        /// The bond for a peer seen at `address`: by identity address, then by the address it
        /// paired from, then, for a resolvable private address, by resolving it with each
        /// bond's IRK (Core v5.4 Vol 6 Part B §1.3.2.3).
        public func bond(for address: DeviceAddress) -> Bond? {
            if let bond = bonds[address] ?? bonds.values.first(where: { $0.peer == address }) { return bond }
            guard address.type.isRandom else { return nil }
            return all.first { bond in
                bond.identityResolvingKey.map { Crypto.resolves(address.address, irk: $0) } ?? false
            }
        }

        /// Bonds in a stable order (by identity), for serialization and display.
        public var all: [Bond] { bonds.values.sorted { $0.identity < $1.identity } }

        /// A bad line met while parsing: its 1-based number and what was wrong with it.
        public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
            public var line: Int
            public var reason: String
            public init(line: Int, reason: String) {
                self.line = line
                self.reason = reason
            }
            public var description: String { "bond file line \(line): \(reason)" }
        }

        public func serialized() -> String {
            var out = Self.header + "\n"
            for bond in all { out += Self.line(for: bond) + "\n" }
            return out
        }

        /// Parses the text form, keeping every good line and reporting each bad one. A missing
        /// or unknown header is reported as line 1, and the lines are still tried: losing the
        /// bonds would force the user to re-pair every transmitter in the middle of the night.
        public static func parse(_ text: String) -> (store: BondStore, errors: [LineError]) {
            var store = BondStore()
            var errors: [LineError] = []
            var sawHeader = false
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let number = index + 1
                let line = raw.trimmingSpaces()
                if line.isEmpty || line.hasPrefix("#") { continue }
                if !sawHeader {
                    sawHeader = true
                    if line.hasPrefix("vigil-bonds ") {
                        if line != header { errors.append(LineError(line: number, reason: "unsupported version \"\(line)\"")) }
                        continue
                    }
                    errors.append(LineError(line: number, reason: "missing header \"\(header)\""))
                }
                do {
                    let bond = try parseBond(line)
                    store.bonds[bond.identity] = bond
                } catch {
                    errors.append(LineError(line: number, reason: error.reason))
                }
            }
            return (store, errors)
        }
    }
}

extension SMP.BondStore {
    static func line(for bond: SMP.Bond) -> String {
        func hex(_ bytes: [UInt8]?) -> String { bytes.map { Hex.encode($0) } ?? "-" }
        func address(_ device: SMP.DeviceAddressText?) -> String { device?.text ?? "-" }
        let fields = [
            "peer=\(SMP.DeviceAddressText(bond.peer).text)",
            "identity=\(address(bond.identityAddress.map(SMP.DeviceAddressText.init)))",
            "irk=\(hex(bond.identityResolvingKey))",
            "ltk=\(hex(bond.longTermKey))",
            "ediv=\(String(bond.ediv, radix: 16))",
            "rand=\(String(bond.rand, radix: 16))",
            "keysize=\(bond.keySize)",
            "sc=\(bond.secureConnections ? 1 : 0)",
            "auth=\(bond.authenticated ? 1 : 0)",
            "csrk=\(hex(bond.signatureKey))",
            "created=\(bond.created.map { String($0.microsecondsSinceEpoch) } ?? "-")",
        ]
        return fields.joined(separator: " ")
    }

    struct FieldError: Error { var reason: String }

    static func parseBond(_ line: String) throws(FieldError) -> SMP.Bond {
        var fields: [String: String] = [:]
        for token in line.split(separator: " ", omittingEmptySubsequences: true) {
            guard let equals = token.firstIndex(of: "=") else { throw FieldError(reason: "\"\(token)\" is not key=value") }
            let key = String(token[..<equals])
            guard fields[key] == nil else { throw FieldError(reason: "\(key) appears twice") }
            fields[key] = String(token[token.index(after: equals)...])
        }
        func value(_ key: String) throws(FieldError) -> String {
            guard let v = fields[key] else { throw FieldError(reason: "missing \(key)") }
            return v
        }
        func optional(_ key: String) throws(FieldError) -> String? {
            let v = try value(key)
            return v == "-" ? nil : v
        }
        func key16(_ key: String, _ text: String) throws(FieldError) -> [UInt8] {
            guard let bytes = Hex.decode(text), bytes.count == 16 else { throw FieldError(reason: "\(key) is not 16 hex bytes") }
            return bytes
        }
        func address(_ key: String, _ text: String) throws(FieldError) -> DeviceAddress {
            guard let device = SMP.DeviceAddressText(parsing: text) else { throw FieldError(reason: "bad \(key) address \"\(text)\"") }
            return device.device
        }
        func flag(_ key: String) throws(FieldError) -> Bool {
            switch try value(key) {
            case "0": return false
            case "1": return true
            case let other: throw FieldError(reason: "\(key) must be 0 or 1, not \"\(other)\"")
            }
        }
        let peer = try address("peer", try value("peer"))
        var identity: DeviceAddress?
        if let text = try optional("identity") { identity = try address("identity", text) }
        var irk: [UInt8]?
        if let text = try optional("irk") { irk = try key16("irk", text) }
        var csrk: [UInt8]?
        if let text = try optional("csrk") { csrk = try key16("csrk", text) }
        let ltk = try key16("ltk", try value("ltk"))
        guard let ediv = UInt16(try value("ediv"), radix: 16) else { throw FieldError(reason: "bad ediv") }
        guard let rand = UInt64(try value("rand"), radix: 16) else { throw FieldError(reason: "bad rand") }
        guard let keySize = UInt8(try value("keysize")), SMP.PairingParameters.keySizes.contains(keySize) else {
            throw FieldError(reason: "keysize must be 7...16")
        }
        var created: WallClockTime?
        if let text = try optional("created") {
            guard let micros = Int64(text) else { throw FieldError(reason: "bad created \"\(text)\"") }
            created = WallClockTime(microsecondsSinceEpoch: micros)
        }
        return SMP.Bond(
            peer: peer, identityAddress: identity, identityResolvingKey: irk, longTermKey: ltk, ediv: ediv, rand: rand,
            keySize: keySize, secureConnections: try flag("sc"), authenticated: try flag("auth"), signatureKey: csrk,
            created: created)
    }
}

extension SMP {
    /// `C0:11:22:33:44:55/random`: an address and its type, as the bond file writes them.
    struct DeviceAddressText {
        var device: DeviceAddress
        init(_ device: DeviceAddress) { self.device = device }

        init?(parsing text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let address = Address(String(parts[0])) else { return nil }
            let types: [AddressType] = [.public, .random, .publicIdentity, .randomIdentity]
            guard let type = types.first(where: { $0.description == parts[1] }) else { return nil }
            device = DeviceAddress(address, type: type)
        }

        var text: String { "\(device.address)/\(device.type)" }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var s = self[...]
        while let first = s.first, first == " " || first == "\t" || first == "\r" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
        return String(s)
    }
}
