import Clocks

/// Reassembles the MiaoMiao data packet (363 or 369 bytes, `MiaoMiaoPacket`) from the
/// notifications it arrives in, and passes every other message through.
///
/// Rules (docs/protocols/miaomiao-bubble.md §MiaoMiao): a packet starts with a notification whose
/// first byte is 0x28 while nothing is being assembled; bytes 1–2 declare its length; it is
/// complete when that many bytes are in (or 369 when 363 were declared and the bridge appended
/// patchInfo in the same notification). A silence of more than `gapTimeout` (3 s, xDrip's "new
/// packet" rule) ends an incomplete packet: it is dropped with a reason, never decoded from half
/// its bytes. A packet that declares an impossible length is dropped at once, and the notifications
/// that follow it within the gap are swallowed with it, so its middle is not mistaken for messages.
public struct MiaoMiaoPacketAssembler: Hashable, Sendable {
    public enum Output: Hashable, Sendable {
        /// A complete data packet, ready for `MiaoMiaoPacket(decoding:)`.
        case packet([UInt8])
        /// A notification that is not part of a data packet (0x32, 0x34, 0xD1, or unknown).
        case message([UInt8])
        /// Bytes thrown away, and why.
        case dropped(reason: String)
    }

    enum State: Hashable, Sendable {
        case idle
        case assembling([UInt8], lastChunkAt: MonotonicInstant)
        case discarding(lastChunkAt: MonotonicInstant)
    }

    public var gapTimeout: Duration
    private(set) var state: State = .idle

    public init(gapTimeout: Duration = .seconds(3)) { self.gapTimeout = gapTimeout }

    public var isAssembling: Bool { if case .assembling = state { true } else { false } }

    /// Bytes of the packet being assembled so far.
    public var bufferedCount: Int { if case let .assembling(buffer, _) = state { buffer.count } else { 0 } }

    /// When the current packet (or discard) times out.
    public var deadline: MonotonicInstant? {
        switch state {
        case .idle: nil
        case let .assembling(_, last), let .discarding(last): last + gapTimeout
        }
    }

    public mutating func reset() { state = .idle }

    public mutating func receive(_ chunk: [UInt8], at now: MonotonicInstant) -> [Output] {
        var outputs: [Output] = []
        if let reason = expire(at: now) { outputs.append(.dropped(reason: reason)) }
        switch state {
        case .idle:
            guard chunk.first == MiaoMiao.ResponseCode.dataPacket.rawValue else { return outputs + [.message(chunk)] }
            outputs += assemble(chunk, at: now)
        case let .assembling(buffer, _):
            outputs += assemble(buffer + chunk, at: now)
        case .discarding:
            state = .discarding(lastChunkAt: now)
        }
        return outputs
    }

    /// Ends a packet that stopped half-way; returns why, or nil if nothing was due.
    public mutating func handleDeadline(at now: MonotonicInstant) -> String? { expire(at: now) }

    // MARK: - Steps

    private mutating func expire(at now: MonotonicInstant) -> String? {
        guard let deadline, now >= deadline else { return nil }
        defer { state = .idle }
        if case let .assembling(buffer, _) = state {
            let expected = buffer.count >= 3 ? "\(declaredLength(buffer))" : "?"
            return "MiaoMiao packet stopped after \(buffer.count) of \(expected) bytes (no notification for \(Int(gapTimeout.seconds)) s)"
        }
        return nil
    }

    private func declaredLength(_ buffer: [UInt8]) -> Int { Int(buffer[1]) << 8 | Int(buffer[2]) }

    private mutating func assemble(_ buffer: [UInt8], at now: MonotonicInstant) -> [Output] {
        guard buffer.count >= 3 else {
            state = .assembling(buffer, lastChunkAt: now)
            return []
        }
        let declared = declaredLength(buffer)
        guard declared == MiaoMiaoPacket.lengthWithoutPatchInfo || declared == MiaoMiaoPacket.lengthWithPatchInfo else {
            state = .discarding(lastChunkAt: now)
            return [.dropped(reason: "MiaoMiao packet declares \(declared) bytes, expected 363 or 369")]
        }
        if buffer.count < declared {
            state = .assembling(buffer, lastChunkAt: now)
            return []
        }
        if buffer.count == declared || (declared == MiaoMiaoPacket.lengthWithoutPatchInfo && buffer.count == MiaoMiaoPacket.lengthWithPatchInfo) {
            state = .idle
            return [.packet(buffer)]
        }
        state = .discarding(lastChunkAt: now)
        return [.dropped(reason: "MiaoMiao packet oversized: \(buffer.count) bytes where \(declared) were declared")]
    }
}
