import Bluetooth
import Clocks
import HCI
import SMP
import Wire

extension Host {
    /// Encrypts the link: with the stored bond's LTK when there is one (Vol 3 Part H §2.4.4.1),
    /// otherwise by pairing. Results arrive as `.encryptionChanged`, `.paired`,
    /// `.encryptionFailed` or `.pairingFailed`.
    public mutating func secure(handle: UInt16, at now: MonotonicInstant) {
        defer { flush(at: now) }
        guard let connection = connections[handle], connection.encryption == .off else { return }
        if let bond = bonds.bond(for: connection.peer) {
            startEncryption(handle: handle, ltk: bond.longTermKey, ediv: bond.ediv, rand: bond.rand, withBond: true)
        } else {
            startPairing(handle: handle, at: now)
        }
    }

    /// Pairs (and bonds) afresh even if a bond exists — after the peer lost its keys.
    public mutating func pair(handle: UInt16, at now: MonotonicInstant) {
        defer { flush(at: now) }
        startPairing(handle: handle, at: now)
    }

    mutating func startPairing(handle: UInt16, at now: MonotonicInstant) {
        guard var connection = connections[handle] else { return }
        if connection.pairing?.state.isPairing == true { return }
        // After an SMP timeout no SMP command may be sent on this link (Vol 3 Part H §3.4): keep
        // the timed-out initiator, which refuses, instead of starting a fresh one.
        var initiator = connection.pairing.flatMap { $0.state == .failed(.timeout) ? $0 : nil } ?? SMP.Initiator(
            local: DeviceAddress(configuration.staticAddress, type: .random),
            peer: connection.peer, configuration: configuration.security, random: random)
        let actions = initiator.startPairing(at: now)
        connection.pairing = initiator
        connections[handle] = connection
        log(.info, "\(connection.peer): pairing")
        perform(actions, on: handle, at: now)
    }

    mutating func startEncryption(handle: UInt16, ltk: [UInt8], ediv: UInt16, rand: UInt64, withBond: Bool) {
        guard var connection = connections[handle] else { return }
        connection.encryption = .starting(withBond: withBond)
        connections[handle] = connection
        commands.enqueue(HCI.LEEnableEncryption(handle: handle, random: rand, ediv: ediv, longTermKey: ltk), purpose: .enableEncryption(handle: handle))
    }

    mutating func receiveSMP(_ pdu: [UInt8], on handle: UInt16, at now: MonotonicInstant) {
        guard var connection = connections[handle] else { return }
        // A Security Request from a peer we hold a bond for asks for re-encryption, not pairing
        // (Vol 3 Part H §2.4.6).
        if pdu.first == 0x0B, connection.pairing?.state.isPairing != true, connection.encryption == .off,
           let bond = bonds.bond(for: connection.peer) {
            log(.info, "\(connection.peer): peer asks for security; encrypting with the stored bond")
            return startEncryption(handle: handle, ltk: bond.longTermKey, ediv: bond.ediv, rand: bond.rand, withBond: true)
        }
        if pdu.first == 0x0B, connection.encryption != .off { return }
        var initiator = connection.pairing ?? SMP.Initiator(
            local: DeviceAddress(configuration.staticAddress, type: .random),
            peer: connection.peer, configuration: configuration.security, random: random)
        let actions = initiator.receive(pdu, at: now)
        connection.pairing = initiator
        connections[handle] = connection
        // Outside a pairing the initiator refuses a bad PDU with Pairing Failed and reports no
        // `.failed` (there is nothing to fail), so without this line a peer speaking garbage
        // on the SMP channel would leave no trace.
        if actions.count == 1, case .send(let reply) = actions[0], reply.first == 0x05 {
            log(.notice, "\(connection.peer): refused SMP PDU \(Hex.encode(pdu.prefix(8), separator: " ")) with Pairing Failed")
        }
        perform(actions, on: handle, at: now)
    }

    mutating func handleSecurityDeadline(on handle: UInt16, at now: MonotonicInstant) {
        guard var connection = connections[handle], var initiator = connection.pairing,
              let deadline = initiator.nextDeadline, now >= deadline else { return }
        let actions = initiator.handleDeadline(at: now)
        connection.pairing = initiator
        connections[handle] = connection
        perform(actions, on: handle, at: now)
    }

    mutating func encryptionChanged(handle: UInt16, status: HCI.Status, enabled: Bool, at now: MonotonicInstant) {
        guard var connection = connections[handle] else { return }
        let previous = connection.encryption
        connection.encryption = status.isSuccess && enabled ? .on : .off
        connections[handle] = connection
        let pairing = connection.pairing?.state.isPairing == true
        if status.isSuccess && enabled {
            // While pairing, the key is not bonded until key distribution ends: report the
            // encryption with `.paired` then, so `bonded` is true when it will be.
            if !pairing {
                let bonded = bonds.bond(for: connection.peer) != nil
                log(.info, "\(connection.peer): link encrypted\(bonded ? " (bonded)" : "")")
                emit(.encryptionChanged(handle: handle, enabled: true, bonded: bonded))
            }
        } else if previous == .starting(withBond: true) {
            // PIN or Key Missing (0x06) is the spec's answer from a peer without our keys.
            log(.warning, "\(connection.peer): encryption with the stored bond failed: \(status)")
            emit(.encryptionFailed(handle: handle, reason: "\(status)", bondRejected: status == .pinOrKeyMissing || status == .authenticationFailure))
        } else if !status.isSuccess {
            emit(.encryptionFailed(handle: handle, reason: "\(status)", bondRejected: false))
        }
        if var initiator = connection.pairing, initiator.state.isPairing {
            let actions = initiator.encryptionChanged(enabled: status.isSuccess && enabled, at: now)
            connection.pairing = initiator
            connections[handle] = connection
            perform(actions, on: handle, at: now)
        }
    }

    mutating func perform(_ actions: [SMP.Action], on handle: UInt16, at now: MonotonicInstant) {
        for action in actions {
            switch action {
            case .send(let pdu):
                sendL2CAP(pdu, channel: L2CAP.ChannelID.securityManager, on: handle)
            case let .startEncryption(ltk, ediv, rand):
                startEncryption(handle: handle, ltk: ltk, ediv: ediv, rand: rand, withBond: false)
            case .paired(let bond):
                bonds.insert(bond, created: wallClock)
                if let connection = connections[handle], let database = connection.database {
                    databaseCache[connection.peer] = database
                }
                log(.info, "\(bond.peer): paired and bonded")
                emit(.paired(handle: handle, bond: bond))
                if connections[handle]?.encryption == .on {
                    emit(.encryptionChanged(handle: handle, enabled: true, bonded: true))
                }
            case .failed(let failure):
                log(.warning, "0x\(String(handle, radix: 16)): pairing failed: \(failure)")
                emit(.pairingFailed(handle: handle, reason: "\(failure)"))
                if connections[handle]?.encryption == .on {
                    emit(.encryptionChanged(handle: handle, enabled: true, bonded: false))
                }
            }
        }
    }
}
