import Bluetooth
import Clocks
import HCI
import Wire

extension Host {
    /// Starts the next queued connection attempt when none is pending.
    mutating func advanceConnector(at now: MonotonicInstant) {
        guard controller == .ready, connector == .idle, !connectQueue.isEmpty else { return }
        let peer = connectQueue.removeFirst()
        connector = .creating(peer, deadline: now + configuration.connectTimeout)
        log(.info, "\(peer): connecting")
        let command = HCI.LECreateConnection(peer: peer, ownAddressType: .random, parameters: configuration.connectionParameters, scanInterval: configuration.scanInterval, scanWindow: configuration.scanInterval)
        commands.enqueue(command, purpose: .createConnection(peer))
    }

    mutating func connectionComplete(_ c: HCI.LEConnectionComplete, at now: MonotonicInstant) {
        var attempt: DeviceAddress?
        switch connector {
        case .creating(let p, _), .cancelling(let p, _): attempt = p
        case .idle: break
        }
        guard c.status.isSuccess else {
            if let attempt {
                connector = .idle
                let reason = c.status == .unknownConnectionIdentifier ? "connection attempt cancelled after timeout" : "\(c.status)"
                emit(.connectionFailed(peer: attempt, reason: reason))
            }
            return advanceConnector(at: now)
        }
        // An LE Connection Complete for a peripheral role would mean something advertised on our
        // behalf; Vigil never advertises, so treat any success as our attempt.
        if attempt != nil { connector = .idle }
        if connections[c.handle] != nil {
            log(.warning, "controller reused live handle 0x\(String(c.handle, radix: 16)); dropping the old connection")
            dropConnection(c.handle, reason: .unspecifiedError, note: "handle reused")
        }
        // A resolved identity address type keeps its bond lookup stable (type 2/3 -> 0/1).
        let peer = attempt.flatMap { $0.address == c.peer.address ? $0 : nil } ?? c.peer
        var connection = Connection(handle: c.handle, peer: peer, preferredMTU: configuration.preferredMTU)
        acl.open(c.handle)
        log(.info, "\(peer): connected, handle 0x\(String(c.handle, radix: 16)), interval \(Double(c.interval) * 1.25) ms")
        // Exchange the MTU first (Vol 3 Part G §4.3.1) so discovery uses big PDUs.
        let out = connection.gatt.enqueue(.exchangeMTU(configuration.preferredMTU), id: 0, at: now)
        connections[c.handle] = connection
        emit(.connected(handle: c.handle, peer: peer))
        handleGATTOutputs(out, on: c.handle, at: now)
        advanceConnector(at: now)
    }

    /// Forgets a connection and fails everything that was waiting on it.
    mutating func dropConnection(_ handle: UInt16, reason: HCI.Status, note: String?) {
        guard var connection = connections.removeValue(forKey: handle) else { return }
        acl.close(handle)
        let pending = connection.gatt.disconnected()
        for output in pending {
            if case let .completed(id, result) = output, id != 0 { emit(.gatt(handle: handle, request: id, result: result)) }
        }
        if connection.encryption == .starting(withBond: true), reason == .terminatedMICFailure || reason == .authenticationFailure {
            emit(.encryptionFailed(handle: handle, reason: "link dropped while encrypting: \(reason)", bondRejected: true))
        }
        if connection.pairing != nil, connection.pairing!.state.isPairing {
            emit(.pairingFailed(handle: handle, reason: "disconnected during pairing"))
        }
        connection.pairing = nil
        log(.info, "\(connection.peer): disconnected (\(note ?? "\(reason)"))")
        emit(.disconnected(handle: handle, peer: connection.peer, reason: reason))
    }

    // MARK: ACL and L2CAP

    mutating func receiveACL(_ packet: HCI.ACLData, at now: MonotonicInstant) {
        guard var connection = connections[packet.handle] else {
            return log(.debug, "ACL data for unknown handle 0x\(String(packet.handle, radix: 16)) dropped")
        }
        var frame: L2CAP.BasicFrame?
        do {
            frame = try connection.reassembler.receive(fragment: packet.data, isFirst: packet.boundary.isFirst)
        } catch {
            log(.warning, "\(connection.peer): \(error); partial frame dropped")
            // The start that exposed the broken frame may be a whole frame itself: deliver it.
            frame = connection.reassembler.takeFrameAfterError()
        }
        connections[packet.handle] = connection
        guard let frame else { return }
        switch frame.channel {
        case L2CAP.ChannelID.att:
            let out = connection.gatt.receive(frame.payload, at: now)
            connections[packet.handle] = connection
            handleGATTOutputs(out, on: packet.handle, at: now)
        case L2CAP.ChannelID.leSignaling:
            receiveSignaling(frame.payload, on: packet.handle, at: now)
        case L2CAP.ChannelID.securityManager:
            receiveSMP(frame.payload, on: packet.handle, at: now)
        default:
            log(.debug, "\(connection.peer): frame on unsupported CID 0x\(String(frame.channel, radix: 16)) dropped")
        }
    }

    mutating func receiveSignaling(_ payload: [UInt8], on handle: UInt16, at now: MonotonicInstant) {
        typealias S = L2CAP.LESignaling
        let command: S.Command
        do {
            command = try S.Command(bytes: payload)
        } catch {
            log(.warning, "malformed LE signaling command: \(error)")
            let identifier = payload.count > 1 ? payload[1] : 0
            if identifier != 0 { sendL2CAP(S.commandReject(identifier: identifier, reason: .commandNotUnderstood).bytes, channel: L2CAP.ChannelID.leSignaling, on: handle) }
            return
        }
        switch command.code {
        case S.Code.connectionParameterUpdateRequest:
            guard let parameters = try? S.decodeParameterUpdateRequest(command.data) else {
                return sendL2CAP(S.commandReject(identifier: command.identifier, reason: .commandNotUnderstood).bytes, channel: L2CAP.ChannelID.leSignaling, on: handle)
            }
            let accepted = parameters.isValid
            sendL2CAP(S.parameterUpdateResponse(identifier: command.identifier, accepted: accepted).bytes, channel: L2CAP.ChannelID.leSignaling, on: handle)
            if accepted {
                commands.enqueue(HCI.LEConnectionUpdate(handle: handle, parameters: parameters), purpose: .connectionUpdate(handle: handle))
            } else {
                log(.notice, "0x\(String(handle, radix: 16)): rejected invalid connection parameters \(parameters)")
            }
        case S.Code.commandReject, S.Code.connectionParameterUpdateResponse, S.Code.leCreditBasedConnectionResponse, S.Code.flowControlCredit:
            break  // Responses and credits for things we never asked for: nothing to answer.
        default:
            // Includes LE credit-based connection requests: Vigil offers no dynamic channels.
            sendL2CAP(S.commandReject(identifier: command.identifier, reason: .commandNotUnderstood).bytes, channel: L2CAP.ChannelID.leSignaling, on: handle)
        }
    }

    mutating func handleGATTOutputs(_ outputs: [GATTClient.Output], on handle: UInt16, at now: MonotonicInstant) {
        for output in outputs {
            switch output {
            case .send(let pdu):
                sendL2CAP(pdu, channel: L2CAP.ChannelID.att, on: handle)
            case let .completed(id, result):
                if case .database(let database) = result, var connection = connections[handle] {
                    connection.database = database
                    connections[handle] = connection
                    if bonds.bond(for: connection.peer) != nil { databaseCache[connection.peer] = database }
                }
                if id == 0 {
                    if case .mtu(let mtu) = result { emit(.mtuExchanged(handle: handle, mtu: mtu)) }
                    continue
                }
                if case .failed(.attributeError(.databaseOutOfSync, _)) = result, let peer = connections[handle]?.peer {
                    databaseCache.removeValue(forKey: peer)
                }
                emit(.gatt(handle: handle, request: id, result: result))
            case let .notification(attribute, value):
                emit(.notification(handle: handle, attribute: attribute, value: value))
            case let .indication(attribute, value):
                emit(.indication(handle: handle, attribute: attribute, value: value))
            case .bearerTimedOut:
                log(.warning, "0x\(String(handle, radix: 16)): ATT bearer timed out; disconnecting")
                disconnect(handle: handle, at: now)
            case .log(let message):
                let peer = connections[handle].map { "\($0.peer)" } ?? "0x\(String(handle, radix: 16))"
                log(.notice, "\(peer): \(message)")
            }
        }
    }
}
