import Wire

extension HCI {
    /// Splits an H4 byte stream (UART, TCP) into packets (Core v5.4 Vol 4 Part A §2).
    ///
    /// Bytes arrive in arbitrary pieces; the framer buffers until a whole packet is present.
    /// An unknown indicator byte means the stream lost sync, which H4 cannot recover from by
    /// itself: the framer reports it and the owner resets the transport.
    public struct H4Framer: Sendable {
        private var buffer: [UInt8] = []
        private var start = 0
        /// Largest packet we accept; a larger length field means a corrupt stream.
        public let maximumPacketLength: Int

        public init(maximumPacketLength: Int = 4 + 65535) {
            self.maximumPacketLength = maximumPacketLength
        }

        public enum FramingError: Error, Equatable, Sendable {
            case unknownPacketIndicator(UInt8)
            case oversizedPacket(length: Int)
        }

        /// Bytes buffered but not yet forming a whole packet.
        public var pendingCount: Int { buffer.count - start }

        public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
            if start > 4096 && start * 2 > buffer.count {
                buffer.removeFirst(start)
                start = 0
            }
            buffer.append(contentsOf: bytes)
        }

        /// The next whole H4 packet (indicator included), nil if more bytes are needed.
        public mutating func nextPacket() throws(FramingError) -> [UInt8]? {
            let available = buffer.count - start
            guard available >= 1 else { return nil }
            let indicator = buffer[start]
            let headerLength: Int
            switch PacketType(rawValue: indicator) {
            case .command: headerLength = 3
            case .aclData: headerLength = 4
            case .scoData: headerLength = 3
            case .event: headerLength = 2
            case .isoData: headerLength = 4
            case nil: throw .unknownPacketIndicator(indicator)
            }
            guard available >= 1 + headerLength else { return nil }
            let h = start + 1
            let payloadLength: Int
            switch PacketType(rawValue: indicator)! {
            case .command, .scoData: payloadLength = Int(buffer[h + 2])
            case .event: payloadLength = Int(buffer[h + 1])
            case .aclData: payloadLength = Int(buffer[h + 2]) | Int(buffer[h + 3]) << 8
            case .isoData: payloadLength = Int(buffer[h + 2]) | Int(buffer[h + 3] & 0x3F) << 8
            }
            let total = 1 + headerLength + payloadLength
            guard total <= maximumPacketLength else { throw .oversizedPacket(length: total) }
            guard available >= total else { return nil }
            let packet = Array(buffer[start..<(start + total)])
            start += total
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            return packet
        }

        /// Drops everything buffered (after a transport reset).
        public mutating func reset() {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
    }
}
