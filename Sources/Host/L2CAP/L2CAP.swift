import Wire

/// The Logical Link Control and Adaptation Protocol on LE (Core v5.4 Vol 3 Part A): basic
/// frames on fixed channels.
public enum L2CAP {
    /// LE fixed channel identifiers (§2.1, Table 2.3).
    public enum ChannelID {
        public static let att: UInt16 = 0x0004
        public static let leSignaling: UInt16 = 0x0005
        public static let securityManager: UInt16 = 0x0006
    }

    /// A basic information frame (B-frame, §3.1): length u16 · channel ID u16 · payload.
    public struct BasicFrame: Sendable, Equatable {
        public var channel: UInt16
        public var payload: [UInt8]

        public init(channel: UInt16, payload: [UInt8]) {
            self.channel = channel
            self.payload = payload
        }

        public var bytes: [UInt8] {
            var w = ByteWriter(capacity: 4 + payload.count)
            w.write(UInt16(payload.count)); w.write(channel); w.write(contentsOf: payload)
            return w.bytes
        }
    }

    /// Joins ACL fragments into B-frames (§7.2.1; ACL Packet_Boundary_Flag in Vol 4 Part E §5.4.2).
    ///
    /// A frame is complete when the bytes received equal the length in its header. A peer that
    /// lies (more bytes than announced, a continuation without a start, a start while a frame is
    /// pending) gets a typed error; the caller logs it and drops the partial frame.
    public struct Reassembler: Sendable {
        private var pending: [UInt8] = []
        private var expected = 0
        /// A whole frame carried by the start fragment that threw `.startWhileIncomplete`:
        /// the broken frame before it is lost, this one is not (see `takeFrameAfterError()`).
        private var frameAfterError: BasicFrame?
        /// The largest B-frame we accept (ATT_MTU 517 + header, with room for signaling/SMP).
        public let maximumFrameLength: Int

        public init(maximumFrameLength: Int = 4 + 1024) {
            self.maximumFrameLength = maximumFrameLength
        }

        public enum ReassemblyError: Error, Equatable, Sendable, CustomStringConvertible {
            case continuationWithoutStart(bytes: Int)
            case startWhileIncomplete(dropped: Int)
            case lengthExceeded(announced: Int, received: Int)
            case frameTooLong(announced: Int)
            case headerTooShort(bytes: Int)

            public var description: String {
                switch self {
                case .continuationWithoutStart(let n): "L2CAP continuation fragment (\(n) byte(s)) with no frame started"
                case .startWhileIncomplete(let n): "L2CAP frame start while \(n) byte(s) of the previous frame were still missing"
                case let .lengthExceeded(a, r): "L2CAP length says \(a) byte(s) but \(r) arrived"
                case .frameTooLong(let a): "L2CAP frame of \(a) byte(s) exceeds what Vigil accepts"
                case .headerTooShort(let n): "L2CAP start fragment of \(n) byte(s) is shorter than the basic header"
                }
            }
        }

        public var isIdle: Bool { pending.isEmpty }

        /// Feeds one ACL packet's data; returns a frame when one completes.
        public mutating func receive(fragment data: [UInt8], isFirst: Bool) throws(ReassemblyError) -> BasicFrame? {
            frameAfterError = nil
            if isFirst {
                let dropped = pending.count
                pending.removeAll(keepingCapacity: true)
                if dropped > 0 {
                    // Keep the new start: the old frame is lost either way. When the start is
                    // a whole frame (a notification after a lost continuation, say) it is
                    // kept for the caller, who logs the error first.
                    let error = ReassemblyError.startWhileIncomplete(dropped: expected - dropped)
                    frameAfterError = try? startFrame(data)
                    throw error
                }
                return try startFrame(data)
            }
            guard !pending.isEmpty else { throw .continuationWithoutStart(bytes: data.count) }
            pending.append(contentsOf: data)
            return try finishIfComplete()
        }

        private mutating func startFrame(_ data: [UInt8]) throws(ReassemblyError) -> BasicFrame? {
            guard data.count >= 4 else { throw .headerTooShort(bytes: data.count) }
            let length = Int(data[0]) | Int(data[1]) << 8
            expected = 4 + length
            guard expected <= maximumFrameLength else { throw .frameTooLong(announced: length) }
            pending = data
            return try finishIfComplete()
        }

        private mutating func finishIfComplete() throws(ReassemblyError) -> BasicFrame? {
            if pending.count > expected {
                let received = pending.count - 4
                pending.removeAll(keepingCapacity: true)
                throw .lengthExceeded(announced: expected - 4, received: received)
            }
            guard pending.count == expected else { return nil }
            let channel = UInt16(pending[2]) | UInt16(pending[3]) << 8
            let frame = BasicFrame(channel: channel, payload: Array(pending[4...]))
            pending.removeAll(keepingCapacity: true)
            return frame
        }

        /// The whole frame that arrived in the start fragment whose `receive` threw
        /// `.startWhileIncomplete`, once; nil otherwise.
        public mutating func takeFrameAfterError() -> BasicFrame? {
            defer { frameAfterError = nil }
            return frameAfterError
        }

        public mutating func reset() { pending.removeAll(); frameAfterError = nil }
    }

    /// Splits a B-frame into ACL payloads of at most `maximumFragment` bytes (the controller's
    /// LE_ACL_Data_Packet_Length): the first is marked "first non-flushable", the rest continuing.
    public static func fragment(_ frame: BasicFrame, maximumFragment: Int) -> [(isFirst: Bool, data: [UInt8])] {
        let bytes = frame.bytes
        let size = max(1, maximumFragment)
        var out: [(Bool, [UInt8])] = []
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + size)
            out.append((i == 0, Array(bytes[i..<end])))
            i = end
        }
        return out
    }
}
