import HCI
import Wire

extension L2CAP {
    /// LE signaling channel commands, CID 0x0005 (Core v5.4 Vol 3 Part A §4): code · identifier ·
    /// length u16 · data. A central must answer Connection Parameter Update Requests (§4.20)
    /// and reject what it does not understand with Command Reject (§4.1).
    public enum LESignaling {
        public enum Code {
            public static let commandReject: UInt8 = 0x01
            public static let disconnectionRequest: UInt8 = 0x06
            public static let connectionParameterUpdateRequest: UInt8 = 0x12
            public static let connectionParameterUpdateResponse: UInt8 = 0x13
            public static let leCreditBasedConnectionRequest: UInt8 = 0x14
            public static let leCreditBasedConnectionResponse: UInt8 = 0x15
            public static let flowControlCredit: UInt8 = 0x16
        }

        /// Command Reject reasons (§4.1).
        public enum RejectReason: UInt16, Sendable {
            case commandNotUnderstood = 0x0000
            case signalingMTUExceeded = 0x0001
            case invalidCIDInRequest = 0x0002
        }

        public struct Command: Sendable, Equatable {
            public var code: UInt8
            public var identifier: UInt8
            public var data: [UInt8]

            public init(code: UInt8, identifier: UInt8, data: [UInt8]) {
                self.code = code
                self.identifier = identifier
                self.data = data
            }

            /// One command per C-frame on LE (§4: "only one command per C-frame").
            public init(bytes: [UInt8]) throws(WireError) {
                var r = ByteReader(bytes)
                code = try r.readUInt8("signaling code")
                identifier = try r.readUInt8("identifier")
                let length = Int(try r.readUInt16("signaling length"))
                guard r.remainingCount == length else {
                    throw .malformed("LE signaling command length \(length) but \(r.remainingCount) byte(s) follow")
                }
                data = r.readRemaining()
            }

            public var bytes: [UInt8] {
                var w = ByteWriter(capacity: 4 + data.count)
                w.write(code); w.write(identifier); w.write(UInt16(data.count)); w.write(contentsOf: data)
                return w.bytes
            }
        }

        /// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ payload (§4.20).
        public static func decodeParameterUpdateRequest(_ data: [UInt8]) throws(WireError) -> HCI.ConnectionParameters {
            var r = ByteReader(data)
            let min = try r.readUInt16("Interval Min")
            let max = try r.readUInt16("Interval Max")
            let latency = try r.readUInt16("Latency")
            let timeout = try r.readUInt16("Timeout")
            try r.expectEnd("connection parameter update request")
            return HCI.ConnectionParameters(intervalMin: min, intervalMax: max, latency: latency, supervisionTimeout: timeout)
        }

        /// L2CAP_CONNECTION_PARAMETER_UPDATE_RSP (§4.21): result 0 accepted, 1 rejected.
        public static func parameterUpdateResponse(identifier: UInt8, accepted: Bool) -> Command {
            Command(code: Code.connectionParameterUpdateResponse, identifier: identifier, data: [accepted ? 0 : 1, 0])
        }

        public static func commandReject(identifier: UInt8, reason: RejectReason) -> Command {
            let r = reason.rawValue
            return Command(code: Code.commandReject, identifier: identifier, data: [UInt8(truncatingIfNeeded: r), UInt8(r >> 8)])
        }
    }
}
