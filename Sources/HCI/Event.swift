import Bluetooth
import Wire

extension HCI {
    /// An HCI event (Core v5.4 Vol 4 Part E §5.4.4, §7.7): code · parameter length · parameters.
    ///
    /// Decoding checks the length byte against the bytes present, so a truncated or padded
    /// packet is rejected whole with a reason instead of being half-read.
    public enum Event: Sendable, Equatable {
        case disconnectionComplete(DisconnectionComplete)
        case encryptionChange(EncryptionChange)
        case commandComplete(CommandComplete)
        case commandStatus(CommandStatus)
        case hardwareError(code: UInt8)
        case numberOfCompletedPackets([CompletedPackets])
        case encryptionKeyRefreshComplete(status: Status, handle: UInt16)
        case readRemoteVersionComplete(status: Status, handle: UInt16)
        case le(LEMetaEvent)
        /// An event Vigil does not interpret; kept so it can be logged.
        case unknown(code: UInt8, parameters: [UInt8])

        public enum Code {
            public static let disconnectionComplete: UInt8 = 0x05
            public static let encryptionChange: UInt8 = 0x08
            public static let readRemoteVersionComplete: UInt8 = 0x0C
            public static let commandComplete: UInt8 = 0x0E
            public static let commandStatus: UInt8 = 0x0F
            public static let hardwareError: UInt8 = 0x10
            public static let numberOfCompletedPackets: UInt8 = 0x13
            public static let encryptionKeyRefreshComplete: UInt8 = 0x30
            public static let leMeta: UInt8 = 0x3E
        }

        /// Decodes an event packet without its H4 indicator.
        public init(bytes: [UInt8]) throws(WireError) {
            try self.init(bytes: bytes, range: bytes.startIndex..<bytes.endIndex)
        }

        /// Decodes the event packet (without its H4 indicator) held in `bytes[range]`, without
        /// copying it out: a btsnoop replay or the benchmark decodes straight from the file's
        /// buffer, and advertising report data stays a slice of it.
        public init(bytes: [UInt8], range: Range<Int>) throws(WireError) {
            guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
                throw .malformed("event range \(range) is outside a buffer of \(bytes.count) byte(s)")
            }
            var r = ByteReader(bytes, range: range)
            let code = try r.readUInt8("event code")
            let length = Int(try r.readUInt8("parameter length"))
            guard r.remainingCount == length else {
                throw .malformed("event 0x\(String(code, radix: 16)) says \(length) parameter byte(s) but \(r.remainingCount) follow")
            }
            switch code {
            case Code.disconnectionComplete:
                self = .disconnectionComplete(try DisconnectionComplete(from: &r))
            case Code.encryptionChange:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                let enabled = try r.readUInt8("encryption enabled")
                self = .encryptionChange(EncryptionChange(status: status, handle: handle, enabled: enabled != 0))
            case Code.readRemoteVersionComplete:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                try r.skip(5, "version information")
                self = .readRemoteVersionComplete(status: status, handle: handle)
            case Code.commandComplete:
                let credits = try r.readUInt8("Num_HCI_Command_Packets")
                let opcode = Opcode(rawValue: try r.readUInt16("Command_Opcode"))
                self = .commandComplete(CommandComplete(numCommandPackets: credits, opcode: opcode, returnParameters: r.readRemaining()))
            case Code.commandStatus:
                let status = Status(try r.readUInt8("status"))
                let credits = try r.readUInt8("Num_HCI_Command_Packets")
                let opcode = Opcode(rawValue: try r.readUInt16("Command_Opcode"))
                self = .commandStatus(CommandStatus(status: status, numCommandPackets: credits, opcode: opcode))
            case Code.hardwareError:
                self = .hardwareError(code: try r.readUInt8("Hardware_Code"))
            case Code.numberOfCompletedPackets:
                let count = Int(try r.readUInt8("Num_Handles"))
                guard r.remainingCount == count * 4 else {
                    throw .malformed("Number Of Completed Packets: \(count) handle(s) need \(count * 4) bytes, \(r.remainingCount) present")
                }
                var entries: [CompletedPackets] = []
                entries.reserveCapacity(count)
                // Handles and counts interleaved, one pair per handle (BlueZ monitor/packet.c).
                for _ in 0..<count {
                    let handle = try r.readUInt16("Connection_Handle") & 0x0FFF
                    let packets = try r.readUInt16("Num_Completed_Packets")
                    entries.append(CompletedPackets(handle: handle, count: packets))
                }
                self = .numberOfCompletedPackets(entries)
            case Code.encryptionKeyRefreshComplete:
                let status = Status(try r.readUInt8("status"))
                let handle = try r.readUInt16("handle") & 0x0FFF
                self = .encryptionKeyRefreshComplete(status: status, handle: handle)
            case Code.leMeta:
                self = .le(try LEMetaEvent(from: &r))
            default:
                self = .unknown(code: code, parameters: r.readRemaining())
            }
            if case .unknown = self {} else if case .commandComplete = self {} else if case .le(.unknown) = self {} else {
                try r.expectEnd("event parameters")
            }
        }
    }

    /// HCI_Disconnection_Complete (§7.7.5).
    public struct DisconnectionComplete: Sendable, Equatable {
        public var status: Status
        public var handle: UInt16
        public var reason: Status
        public init(status: Status, handle: UInt16, reason: Status) {
            self.status = status
            self.handle = handle
            self.reason = reason
        }
        init(from r: inout ByteReader) throws(WireError) {
            status = Status(try r.readUInt8("status"))
            handle = try r.readUInt16("handle") & 0x0FFF
            reason = Status(try r.readUInt8("reason"))
        }
    }

    /// HCI_Encryption_Change [v1] (§7.7.8).
    public struct EncryptionChange: Sendable, Equatable {
        public var status: Status
        public var handle: UInt16
        public var enabled: Bool
        public init(status: Status, handle: UInt16, enabled: Bool) {
            self.status = status
            self.handle = handle
            self.enabled = enabled
        }
    }

    /// HCI_Command_Complete (§7.7.14). Return parameters start with the status for almost
    /// every command; typed `Return` decoders live next to each command.
    public struct CommandComplete: Sendable, Equatable {
        public var numCommandPackets: UInt8
        public var opcode: Opcode
        public var returnParameters: [UInt8]
        public init(numCommandPackets: UInt8, opcode: Opcode, returnParameters: [UInt8]) {
            self.numCommandPackets = numCommandPackets
            self.opcode = opcode
            self.returnParameters = returnParameters
        }
        /// The first return parameter, when there is one.
        public var status: Status { Status(returnParameters.first ?? 0) }
    }

    /// HCI_Command_Status (§7.7.15).
    public struct CommandStatus: Sendable, Equatable {
        public var status: Status
        public var numCommandPackets: UInt8
        public var opcode: Opcode
        public init(status: Status, numCommandPackets: UInt8, opcode: Opcode) {
            self.status = status
            self.numCommandPackets = numCommandPackets
            self.opcode = opcode
        }
    }

    /// One entry of HCI_Number_Of_Completed_Packets (§7.7.19).
    public struct CompletedPackets: Sendable, Equatable {
        public var handle: UInt16
        public var count: UInt16
        public init(handle: UInt16, count: UInt16) {
            self.handle = handle
            self.count = count
        }
    }
}
