import Wire

/// The Host Controller Interface: packets exchanged with a Bluetooth controller
/// (Core v5.4 Vol 4 Part E). Every type in this target is a pure value with encode/decode;
/// nothing here performs I/O.
public enum HCI {
    /// The H4 packet indicator: the first byte on a UART, on a Linux HCI user-channel socket and
    /// in a btsnoop (datalink 1002) record (Core v5.4 Vol 4 Part A §2; BlueZ hci.h `HCI_*_PKT`).
    public enum PacketType: UInt8, Sendable, CaseIterable {
        case command = 0x01
        case aclData = 0x02
        case scoData = 0x03
        case event = 0x04
        case isoData = 0x05
    }

    /// A command opcode: OGF in the top 6 bits, OCF in the low 10 (Vol 4 Part E §5.4.1).
    public struct Opcode: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf) << 10 | (ocf & 0x03FF) }
        public var ogf: UInt8 { UInt8(rawValue >> 10) }
        public var ocf: UInt16 { rawValue & 0x03FF }
        public var description: String {
            let name = HCI.commandNames[rawValue]
            let hex = String(rawValue, radix: 16)
            return "\(name ?? "Command") (0x\(String(repeating: "0", count: 4 - hex.count))\(hex))"
        }
    }

    /// Every packet an HCI transport carries, split at the H4 indicator.
    public enum Packet: Sendable, Equatable {
        case command([UInt8])  // opcode · length · parameters
        case aclData([UInt8])  // handle/flags · length · data
        case event([UInt8])    // code · length · parameters
        case other(type: UInt8, [UInt8])

        /// Splits an H4 packet (indicator first).
        public init(h4 bytes: [UInt8]) throws(WireError) {
            guard let first = bytes.first else { throw .truncated(field: "H4 indicator", needed: 1, available: 0) }
            let body = Array(bytes.dropFirst())
            switch PacketType(rawValue: first) {
            case .command: self = .command(body)
            case .aclData: self = .aclData(body)
            case .event: self = .event(body)
            default: self = .other(type: first, body)
            }
        }

        public var h4Bytes: [UInt8] {
            switch self {
            case .command(let b): [PacketType.command.rawValue] + b
            case .aclData(let b): [PacketType.aclData.rawValue] + b
            case .event(let b): [PacketType.event.rawValue] + b
            case .other(let t, let b): [t] + b
            }
        }
    }
}
