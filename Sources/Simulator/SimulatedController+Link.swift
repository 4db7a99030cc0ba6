import Bluetooth
import Clocks
import HCI
import Wire

// The air side: advertising events heard by the scanner and the initiator, links with their
// supervision timeout, and ACL data in both directions.

extension SimulatedController {
    var isListening: Bool { scan != nil || pendingConnection != nil }

    /// The earliest moment something happens by itself.
    var internalDeadline: MonotonicInstant? {
        var deadlines: [MonotonicInstant?] = timers.map(\.due)
        for (handle, c) in connections {
            deadlines.append(c.linkLossDeadline ?? (peerIsGone(handle) ? now + c.parameters.supervisionDuration : nil))
            if let i = peripheralIndex(for: handle) { deadlines.append(radio.peripherals[i].nextDeadline) }
        }
        if isListening { deadlines.append(radio.nextAdvertisingEvent(atOrAfter: radioCursor)?.time) }
        return earliest(deadlines)
    }

    /// Runs everything due up to `target`, in time order.
    mutating func advance(to target: MonotonicInstant) {
        guard !isDead else {
            // A dead controller hears nothing; when revived it does not replay the past.
            now = max(now, target)
            radioCursor = max(radioCursor, now)
            return
        }
        noticeVanishedPeers(at: now)
        var previous: MonotonicInstant?
        var repeats = 0
        while let due = internalDeadline, due <= target {
            // Every source moves past `due` when handled; one that does not would spin forever.
            repeats = due == previous ? repeats + 1 : 0
            previous = due
            if repeats > 1_000 {
                violations.append(.deadlineNotAdvanced(at: due))
                break
            }
            now = max(now, due)
            runTimers(due: due)
            for (handle, c) in connections where (c.linkLossDeadline.map { $0 <= due } ?? false) {
                // Supervision timeout (Vol 6 Part B §4.5.2): Connection Timeout.
                closeConnection(handle, reason: .connectionTimeout, at: due)
            }
            for handle in connections.keys.sorted() {
                guard let i = peripheralIndex(for: handle), let d = radio.peripherals[i].nextDeadline, d <= due else { continue }
                radio.peripherals[i].handleDeadline(at: due)
            }
            if isListening, let first = radio.nextAdvertisingEvent(atOrAfter: radioCursor), first.time == due {
                // Every advertiser with an event at this very instant, in radio order.
                for i in radio.peripherals.indices where radio.peripherals[i].isAdvertising {
                    let p = radio.peripherals[i]
                    let event = p.advertising.firstEvent(atOrAfter: radioCursor, anchor: p.advertisingAnchor)
                    if event.time == due { hearAdvertisingEvent(peripheral: i, event: event.index, at: due) }
                }
                radioCursor = due + .nanoseconds(1)
            }
            pumpPeripherals()
            noticeVanishedPeers(at: due)
        }
        now = max(now, target)
    }

    mutating func startListening() {
        if !isListening { radioCursor = now }
    }

    private mutating func runTimers(due: MonotonicInstant) {
        let ready = timers.filter { $0.due <= due }
        timers.removeAll { $0.due <= due }
        for (_, timer) in ready {
            switch timer {
            case .connectionUpdateComplete(let handle, let requested):
                guard connections[handle] != nil else { continue }
                var applied = requested
                applied.intervalMax = requested.intervalMin  // the controller picks the shortest allowed interval
                connections[handle]?.parameters = applied
                if let i = peripheralIndex(for: handle) { radio.peripherals[i].connectionParametersChanged(applied) }
                emit(HCI.LEConnectionUpdateComplete(status: .success, handle: handle, interval: applied.intervalMin,
                                                    latency: applied.latency, supervisionTimeout: applied.supervisionTimeout).eventBytes)
            }
        }
    }

    private mutating func hearAdvertisingEvent(peripheral i: Int, event index: UInt64, at t: MonotonicInstant) {
        let p = radio.peripherals[i]
        let rssi = p.advertising.rssi(base: p.rssi, event: index)
        if let s = scan {
            report(p.advertising.kind.reportKind, from: p.address, rssi: rssi, data: p.advertising.data(forEvent: index))
            // An active scanner sends SCAN_REQ to scannable advertisers and reports SCAN_RSP (Vol 6 Part B §4.4.3.2).
            if s.parameters.active && p.advertising.kind.isScannable {
                report(.scanResponse, from: p.address, rssi: rssi, data: p.advertising.scanResponse)
            }
        }
        if let pending = pendingConnection, p.advertising.kind == .connectable,
           pending.command.peer.address == p.address.address, pending.command.peer.type.isRandom == p.address.type.isRandom {
            establishConnection(to: i, pending.command, at: t)
        }
    }

    private mutating func report(_ kind: HCI.AdvertisingReport.Kind, from address: DeviceAddress, rssi: Int8, data: [UInt8]) {
        if scan?.filterDuplicates == true {
            // Duplicate filtering is per address and PDU kind, reset when scanning is enabled (§7.8.11).
            guard scan?.reported.insert(ReportKey(address: address.address, kind: kind.rawValue)).inserted == true else { return }
        }
        emit(HCI.AdvertisingReport(kind: kind, address: address, rssi: rssi, data: data[...]).legacyEventBytes)
    }

    private mutating func establishConnection(to i: Int, _ command: HCI.LECreateConnection, at t: MonotonicInstant) {
        // Handles count up from 0x0040, wrap below 0x0EFF (the largest valid handle) and skip
        // any still in use.
        var handle = nextHandle
        while connections[handle] != nil { handle = handle >= 0x0EFF ? 0x0040 : handle + 1 }
        nextHandle = handle >= 0x0EFF ? 0x0040 : handle + 1
        var parameters = command.parameters
        parameters.intervalMax = parameters.intervalMin  // the initiator picks the shortest allowed interval
        connections[handle] = Connection(handle: handle, peer: radio.peripherals[i].address, parameters: parameters)
        pendingConnection = nil
        let own = command.ownAddressType == .random && randomAddress != nil
            ? DeviceAddress(randomAddress!, type: .random) : DeviceAddress(configuration.publicAddress, type: .public)
        radio.peripherals[i].linkEstablished(central: own, parameters: parameters, at: t)
        emit(HCI.LEConnectionComplete(status: .success, handle: handle, role: .central, peer: radio.peripherals[i].address,
                                      interval: parameters.intervalMin, latency: parameters.latency,
                                      supervisionTimeout: parameters.supervisionTimeout).eventBytes)
    }

    mutating func closeConnection(_ handle: UInt16, reason: HCI.Status, at t: MonotonicInstant) {
        guard let connection = connections[handle] else { return }
        if let i = peripheralIndex(for: handle) { radio.peripherals[i].linkClosed(at: t) }
        connections[handle] = nil
        timers.removeAll { if case .connectionUpdateComplete(let h, _) = $0.timer { h == handle } else { false } }
        // With the Disconnection Complete the host may count the handle's unacknowledged packets
        // as freed (Vol 4 Part E §4.3).
        emit(HCI.DisconnectionComplete(status: .success, handle: handle, reason: reason).eventBytes,
             aclCredits: connection.unacknowledgedPackets)
    }

    func peripheralIndex(for handle: UInt16) -> Int? {
        connections[handle].flatMap { radio.index(of: $0.peer) }
    }

    private func peerIsGone(_ handle: UInt16) -> Bool {
        guard let i = peripheralIndex(for: handle) else { return true }
        return !radio.peripherals[i].isInRange
    }

    mutating func noticeVanishedPeers(at t: MonotonicInstant) {
        for (handle, c) in connections where c.linkLossDeadline == nil && peerIsGone(handle) {
            connections[handle]?.linkLossDeadline = t + c.parameters.supervisionDuration
        }
    }

    // MARK: ACL

    /// Host → controller ACL (Vol 4 Part E §5.4.2): fragments to the buffer size, reassembled
    /// here per the L2CAP length field (Vol 3 Part A §3.1) before the peer sees the frame.
    mutating func receiveACL(_ body: [UInt8]) {
        guard let acl = try? HCI.ACLData(bytes: body) else { return violations.append(.malformedACL(body)) }
        guard hostACLCredits > 0 else { return violations.append(.aclWithoutBuffer(handle: acl.handle)) }
        hostACLCredits -= 1
        let bufferLength = configuration.leACLDataPacketLength == 0 ? configuration.aclDataPacketLength : configuration.leACLDataPacketLength
        if acl.data.count > Int(bufferLength) { violations.append(.aclLongerThanBuffer(handle: acl.handle, length: acl.data.count)) }
        guard var connection = connections[acl.handle] else { return violations.append(.aclForUnknownHandle(acl.handle)) }
        let peerAnswers = peripheralIndex(for: acl.handle).map { radio.peripherals[$0].isInRange } ?? false
        if peerAnswers {
            // The peer acknowledged the packet, freeing its buffer: the host gets its credit back.
            emit(HCI.numberOfCompletedPacketsBytes([HCI.CompletedPackets(handle: acl.handle, count: 1)]), aclCredits: 1)
        } else {
            // Never acknowledged: no Number Of Completed Packets; the credit returns only with
            // Disconnection Complete (Vol 4 Part E §4.3).
            connection.unacknowledgedPackets += 1
        }
        if acl.boundary.isFirst {
            if connection.reassembly != nil { violations.append(.incompleteL2CAPFrameDropped(handle: acl.handle)) }
            connection.reassembly = acl.data
        } else if connection.reassembly == nil {
            violations.append(.continuationWithoutStart(handle: acl.handle))
        } else {
            connection.reassembly! += acl.data
        }
        var complete: [UInt8]?
        if let buffer = connection.reassembly, buffer.count >= 4 {
            let need = 4 + (Int(buffer[0]) | Int(buffer[1]) << 8)
            if buffer.count == need {
                complete = buffer
                connection.reassembly = nil
            } else if buffer.count > need {
                violations.append(.l2capLengthExceeded(handle: acl.handle))
                connection.reassembly = nil
            }
        }
        connections[acl.handle] = connection
        if let complete, let i = peripheralIndex(for: acl.handle), radio.peripherals[i].isInRange {
            radio.peripherals[i].receive(frame: complete, at: now)
        }
    }

    /// Carries the peripherals' L2CAP frames to the host, fragmented to
    /// `hostBoundFragmentLength`: first fragment boundary 0b10, the rest 0b01 (§5.4.2).
    mutating func pumpPeripherals() {
        for handle in connections.keys.sorted() {
            guard let i = peripheralIndex(for: handle) else { continue }
            let frames = radio.peripherals[i].takeFrames()
            // A peer out of range transmits into the void.
            guard radio.peripherals[i].isInRange else { continue }
            for frame in frames {
                let size = max(1, configuration.hostBoundFragmentLength)
                var offset = 0
                repeat {
                    let chunk = Array(frame[offset..<min(frame.count, offset + size)])
                    let acl = HCI.ACLData(handle: handle, boundary: offset == 0 ? .firstFlushable : .continuing, data: chunk)
                    outbox.append(Outgoing(h4: [HCI.PacketType.aclData.rawValue] + acl.bytes))
                    offset += size
                } while offset < frame.count
            }
        }
    }
}
