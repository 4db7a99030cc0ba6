import Wire

extension HCI {
    /// An HCI ACL data packet (Core v5.4 Vol 4 Part E §5.4.2):
    /// handle (12 bits) · Packet_Boundary_Flag (2) · Broadcast_Flag (2) · length u16 · data.
    public struct ACLData: Sendable, Equatable {
        /// Packet_Boundary_Flag values for LE (§5.4.2).
        public enum Boundary: UInt8, Sendable {
            /// First non-automatically-flushable fragment: what a host sends on LE.
            case firstNonFlushable = 0b00
            case continuing = 0b01
            /// First automatically-flushable fragment: what controllers send to the host.
            case firstFlushable = 0b10
            case complete = 0b11

            public var isFirst: Bool { self != .continuing }
        }

        public var handle: UInt16
        public var boundary: Boundary
        public var data: [UInt8]

        public init(handle: UInt16, boundary: Boundary, data: [UInt8]) {
            self.handle = handle
            self.boundary = boundary
            self.data = data
        }

        /// Decodes an ACL packet without its H4 indicator; the length field must match exactly.
        public init(bytes: [UInt8]) throws(WireError) {
            var r = ByteReader(bytes)
            let header = try r.readUInt16("handle and flags")
            let length = Int(try r.readUInt16("Data_Total_Length"))
            guard r.remainingCount == length else {
                throw .malformed("ACL length field says \(length) byte(s) but \(r.remainingCount) follow")
            }
            handle = header & 0x0FFF
            boundary = Boundary(rawValue: UInt8((header >> 12) & 0b11))!
            guard header >> 14 == 0 else { throw .invalidValue(field: "Broadcast_Flag", value: Int(header >> 14)) }
            data = r.readRemaining()
        }

        public var bytes: [UInt8] {
            var w = ByteWriter(capacity: 4 + data.count)
            w.write(handle & 0x0FFF | UInt16(boundary.rawValue) << 12)
            w.write(UInt16(data.count))
            w.write(contentsOf: data)
            return w.bytes
        }
    }
}
