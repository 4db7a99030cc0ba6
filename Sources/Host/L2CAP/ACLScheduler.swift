import HCI

/// Host-to-controller ACL flow control (Core v5.4 Vol 4 Part E §4.1.1): the controller has
/// `totalPackets` buffers of `packetLength` bytes shared by all LE connections; each packet
/// sent takes one until a Number Of Completed Packets event returns it.
///
/// Frames are fragmented on enqueue and sent round-robin across connections, so a connection
/// with a backlog cannot starve another (a flood on one link must not delay a glucose reading).
struct ACLScheduler: Sendable {
    private(set) var packetLength = 27
    private(set) var totalPackets = 1
    private(set) var freePackets = 1
    /// Packets sent and not yet completed, per connection handle.
    private var outstanding: [UInt16: Int] = [:]
    private var queues: [UInt16: [[UInt8]]] = [:]
    private var order: [UInt16] = []
    private var cursor = 0
    /// A backlog beyond this per connection means the link is not draining; drop new frames.
    static let maximumQueuedFragments = 512

    mutating func configure(packetLength: Int, totalPackets: Int) {
        self.packetLength = max(27, packetLength)
        self.totalPackets = max(1, totalPackets)
        freePackets = self.totalPackets
        outstanding.removeAll()
    }

    mutating func open(_ handle: UInt16) {
        if queues[handle] == nil {
            queues[handle] = []
            order.append(handle)
        }
    }

    /// Forgets a connection; its outstanding packets count as completed (§4.1.1: the controller
    /// flushes them on disconnection).
    mutating func close(_ handle: UInt16) {
        freePackets = min(totalPackets, freePackets + (outstanding.removeValue(forKey: handle) ?? 0))
        queues.removeValue(forKey: handle)
        order.removeAll { $0 == handle }
    }

    /// Queues one L2CAP frame. Returns false when the connection's backlog is full.
    mutating func enqueue(_ frame: L2CAP.BasicFrame, on handle: UInt16) -> Bool {
        guard queues[handle] != nil else { return false }
        let fragments = L2CAP.fragment(frame, maximumFragment: packetLength)
        guard queues[handle]!.count + fragments.count <= Self.maximumQueuedFragments else { return false }
        for (isFirst, data) in fragments {
            let packet = HCI.ACLData(handle: handle, boundary: isFirst ? .firstNonFlushable : .continuing, data: data)
            queues[handle]!.append([HCI.PacketType.aclData.rawValue] + packet.bytes)
        }
        return true
    }

    /// Packets to send now (H4), as credits allow.
    mutating func pump() -> [[UInt8]] {
        var out: [[UInt8]] = []
        var idle = 0
        while freePackets > 0, !order.isEmpty, idle < order.count {
            cursor %= order.count
            let handle = order[cursor]
            cursor += 1
            if var queue = queues[handle], !queue.isEmpty {
                out.append(queue.removeFirst())
                queues[handle] = queue
                freePackets -= 1
                outstanding[handle, default: 0] += 1
                idle = 0
            } else {
                idle += 1
            }
        }
        return out
    }

    /// Number Of Completed Packets: credits come back. Counts for unknown handles or beyond what
    /// was outstanding are clamped (a buggy controller must not inflate our credits).
    mutating func completed(handle: UInt16, count: Int) {
        let had = outstanding[handle] ?? 0
        let returned = min(had, count)
        outstanding[handle] = had - returned
        freePackets = min(totalPackets, freePackets + returned)
    }

    func queuedCount(_ handle: UInt16) -> Int { queues[handle]?.count ?? 0 }
}
