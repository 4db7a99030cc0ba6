import Clocks
import Bluetooth
import HCI

/// HCI command flow control (Core v5.4 Vol 4 Part E §4.4): the controller grants
/// Num_HCI_Command_Packets credits in every Command Complete/Status; the host sends only while
/// it holds one. Every command sent gets a deadline — controllers (Bumble among them) leave
/// some commands unanswered, and a dead controller must be noticed, not waited on forever.
struct CommandQueue: Sendable {
    struct Pending: Sendable {
        var packet: HCI.CommandPacket
        var purpose: CommandPurpose
        var deadline: MonotonicInstant
    }

    private(set) var credits = 1
    private var waiting: [(HCI.CommandPacket, CommandPurpose)] = []
    private(set) var inFlight: [Pending] = []
    /// Since when commands have waited with no credit and nothing in flight. A controller may
    /// answer with zero credits and grant more later (a NOP Command Complete, §7.7.14); one that
    /// never does must be noticed like one that never answers, not waited on silently.
    private var starvedSince: MonotonicInstant?
    let timeout: Duration

    init(timeout: Duration) { self.timeout = timeout }

    mutating func enqueue(_ command: some HCICommand, purpose: CommandPurpose) {
        waiting.append((HCI.CommandPacket(command), purpose))
    }

    /// The oldest command waiting, taken off the queue unsent: on a replay the capture plays
    /// the controller, and the host answers its own commands (`Host+Replay`).
    mutating func takeWaiting() -> (packet: HCI.CommandPacket, purpose: CommandPurpose)? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }

    /// Commands to send now, as H4 packets.
    mutating func flush(at now: MonotonicInstant) -> [[UInt8]] {
        var out: [[UInt8]] = []
        while credits > 0, !waiting.isEmpty {
            let (packet, purpose) = waiting.removeFirst()
            credits -= 1
            inFlight.append(Pending(packet: packet, purpose: purpose, deadline: now + timeout))
            out.append([HCI.PacketType.command.rawValue] + packet.bytes)
        }
        // With a command in flight its own deadline covers us: its answer brings credits.
        if credits > 0 || waiting.isEmpty || !inFlight.isEmpty {
            starvedSince = nil
        } else if starvedSince == nil {
            starvedSince = now
        }
        return out
    }

    /// A Command Complete or Status arrived: take the credit it grants and the pending command
    /// it answers (the oldest in flight with that opcode), if any.
    mutating func answer(opcode: HCI.Opcode, credits granted: UInt8) -> Pending? {
        // The credit count is absolute, not a delta (§7.7.14).
        credits = Int(granted)
        guard opcode.rawValue != 0, let index = inFlight.firstIndex(where: { $0.packet.opcode == opcode }) else { return nil }
        return inFlight.remove(at: index)
    }

    var nextDeadline: MonotonicInstant? { earliest(inFlight.map(\.deadline).min(), starvedSince.map { $0 + timeout }) }

    /// Commands whose deadline has passed, removed from flight. A timed-out command's credit is
    /// presumed returned so one lost answer does not wedge the queue.
    mutating func expire(at now: MonotonicInstant) -> [Pending] {
        var expired = inFlight.filter { $0.deadline <= now }
        inFlight.removeAll { $0.deadline <= now }
        // A command that waited a whole timeout for a credit counts as unanswered too.
        if let since = starvedSince, since + timeout <= now, !waiting.isEmpty {
            let (packet, purpose) = waiting.removeFirst()
            expired.append(Pending(packet: packet, purpose: purpose, deadline: since + timeout))
            starvedSince = nil
        }
        guard !expired.isEmpty else { return [] }
        credits = max(credits, 1)
        return expired
    }

    var isIdle: Bool { waiting.isEmpty && inFlight.isEmpty }

    mutating func reset() {
        waiting.removeAll()
        inFlight.removeAll()
        starvedSince = nil
        credits = 1
    }
}

/// Why a command was sent: what to do with its answer.
enum CommandPurpose: Sendable, Equatable {
    case bringUp(BringUpStep)
    case scanParameters
    case scanEnable(Bool)
    case createConnection(DeviceAddress)
    case cancelConnection
    case disconnect(handle: UInt16)
    case connectionUpdate(handle: UInt16)
    case enableEncryption(handle: UInt16)
    /// Nice to have: a missing answer is logged, not a controller failure.
    case optional(String)

    var isCritical: Bool {
        if case .optional = self { return false }
        return true
    }
}

/// The steps of controller bring-up, in order.
enum BringUpStep: Int, Sendable, CaseIterable, Comparable {
    case reset
    /// A controller whose Reset leaves scanning on (Bumble's is a no-op) would refuse the scan
    /// parameters and the random address; stopping a scan that is not running is harmless.
    case stopScanning
    case readLocalVersion
    case writeLEHostSupport
    case setEventMask
    case leSetEventMask
    case leReadBufferSize
    case readBufferSize
    case leReadLocalFeatures
    case readBDADDR
    case leSetRandomAddress

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
