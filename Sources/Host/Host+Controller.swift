import Bluetooth
import Clocks
import HCI
import Wire

extension Host {
    /// One H4 packet from the controller. Malformed packets are logged and dropped; nothing the
    /// controller sends can make the host trap.
    public mutating func receive(_ h4: [UInt8], at now: MonotonicInstant) {
        defer { flush(at: now) }
        guard let indicator = h4.first else { return log(.warning, "dropped an empty HCI packet") }
        let body = Array(h4.dropFirst())
        switch HCI.PacketType(rawValue: indicator) {
        case .event:
            do {
                handle(try HCI.Event(bytes: body), at: now)
            } catch {
                log(.warning, "dropped malformed HCI event \(Hex.encode(body.prefix(16), separator: " ")): \(error)")
            }
        case .aclData:
            do {
                receiveACL(try HCI.ACLData(bytes: body), at: now)
            } catch {
                log(.warning, "dropped malformed ACL packet \(Hex.encode(body.prefix(16), separator: " ")): \(error)")
            }
        default:
            log(.warning, "dropped HCI packet with indicator 0x\(String(indicator, radix: 16)) (\(body.count) bytes)")
        }
    }

    /// Handles every deadline due at `now`: commands the controller never answered, connection
    /// attempts, GATT and pairing timeouts.
    ///
    /// `inputWaiting`: the owner's last look at the link found input it has not fed yet. Then
    /// nothing is timed out until that input is in (or `backlogAllowance` has passed): a host
    /// busy with a backlog (a peer flooding notifications faster than a small board decodes
    /// them) has not yet read the answer it would give up on, and the controller that sent all
    /// of it is not the one that failed. Found under qemu-user, where the arm64 build read a
    /// flood's 30,000 notifications seconds behind and called the controller lost when the
    /// Command Complete for LE Set Scan Enable was waiting behind them (docs/arm64-build.md).
    public mutating func handleDeadline(at now: MonotonicInstant, inputWaiting: Bool = false) {
        defer { flush(at: now) }
        if inputWaiting, let due = nextDeadline, now < due + configuration.backlogAllowance { return }
        for expired in commands.expire(at: now) {
            let what = "\(expired.packet.opcode)"
            if !expired.purpose.isCritical {
                log(.notice, "controller never answered \(what); carrying on")
                continue
            }
            fail("controller did not answer \(what) within \(configuration.commandTimeout)")
            // On: the controller may have failed already (events still arriving made a
            // connection since), and then nothing was dropped: every other deadline due now
            // is handled too, or it would stay due and the owner's loop spin on it.
            break
        }
        switch connector {
        case let .creating(peer, deadline) where now >= deadline:
            log(.notice, "\(peer): no connection after \(configuration.connectTimeout); cancelling")
            connector = .cancelling(peer, deadline: now + configuration.cancelTimeout)
            commands.enqueue(HCI.LECreateConnectionCancel(), purpose: .cancelConnection)
        case let .cancelling(peer, deadline) where now >= deadline:
            // The spec promises an LE Connection Complete after a cancel; some controllers
            // (Bumble) never send it. Give up on the attempt rather than wait forever.
            connector = .idle
            emit(.connectionFailed(peer: peer, reason: "connection attempt timed out"))
            advanceConnector(at: now)
        default:
            break
        }
        for handle in connections.keys.sorted() {
            guard var connection = connections[handle] else { continue }
            if let d = connection.gatt.nextDeadline, now >= d {
                let out = connection.gatt.handleDeadline(at: now)
                connections[handle] = connection
                handleGATTOutputs(out, on: handle, at: now)
            }
            handleSecurityDeadline(on: handle, at: now)
        }
    }

    /// The controller is unusable: report it once; the owner resets the transport and calls `start`.
    mutating func fail(_ reason: String) {
        if case .failed = controller { return }
        controller = .failed(reason)
        log(.error, reason)
        for handle in connections.keys.sorted() {
            dropConnection(handle, reason: .hardwareFailure, note: "controller failed")
        }
        // An attempt in flight ends here too, or its owner would wait for it for ever (the
        // controller that hung at LE Create Connection never answers it after a reset).
        if case .creating(let peer, _) = connector { emit(.connectionFailed(peer: peer, reason: "controller failed")) }
        if case .cancelling(let peer, _) = connector { emit(.connectionFailed(peer: peer, reason: "controller failed")) }
        commands.reset()
        connector = .idle
        scanner.state = .stopped
        emit(.controllerFailed(reason))
    }

    mutating func handle(_ event: HCI.Event, at now: MonotonicInstant) {
        switch event {
        case .commandComplete(let complete):
            guard let pending = commands.answer(opcode: complete.opcode, credits: complete.numCommandPackets) else {
                // On a replay every answer is to another host's command: not worth a line each.
                if complete.opcode.rawValue != 0 && !configuration.replay {
                    log(.debug, "Command Complete for \(complete.opcode) that was not pending")
                }
                return
            }
            commandAnswered(pending.purpose, status: complete.status, returnParameters: complete.returnParameters, at: now)
        case .commandStatus(let status):
            guard let pending = commands.answer(opcode: status.opcode, credits: status.numCommandPackets) else { return }
            commandAnswered(pending.purpose, status: status.status, returnParameters: nil, at: now)
        case .numberOfCompletedPackets(let entries):
            for entry in entries { acl.completed(handle: entry.handle, count: Int(entry.count)) }
        case .hardwareError(let code):
            fail("controller reported hardware error 0x\(String(code, radix: 16))")
        case .disconnectionComplete(let d):
            guard d.status.isSuccess else { return log(.warning, "disconnection of 0x\(String(d.handle, radix: 16)) failed: \(d.status)") }
            dropConnection(d.handle, reason: d.reason, note: nil)
            advanceConnector(at: now)
        case .encryptionChange(let change):
            encryptionChanged(handle: change.handle, status: change.status, enabled: change.enabled, at: now)
        case let .encryptionKeyRefreshComplete(status, handle):
            encryptionChanged(handle: handle, status: status, enabled: status.isSuccess, at: now)
        case .readRemoteVersionComplete:
            break
        case .le(let le):
            handleLE(le, at: now)
        case .unknown(let code, _):
            log(.debug, "ignored HCI event 0x\(String(code, radix: 16))")
        }
    }

    mutating func handleLE(_ event: HCI.LEMetaEvent, at now: MonotonicInstant) {
        switch event {
        case .advertisingReports(let reports):
            guard case .scanning = scanner.state else { return }
            for report in reports {
                if let advertisement = scanner.fold(report, at: now) { emit(.advertisement(advertisement)) }
            }
        case .connectionComplete(let complete):
            connectionComplete(complete, at: now)
        case .connectionUpdateComplete(let u):
            if u.status.isSuccess {
                emit(.connectionParametersChanged(handle: u.handle, interval: u.interval, latency: u.latency, supervisionTimeout: u.supervisionTimeout))
            }
        case let .longTermKeyRequest(handle, _, _):
            // We are never the peripheral; refuse so the link does not hang (§7.8.26).
            commands.enqueue(HCI.LELongTermKeyRequestNegativeReply(handle: handle), purpose: .optional("LTK negative reply"))
        case .remoteConnectionParameterRequest(let handle, let parameters):
            log(.debug, "0x\(String(handle, radix: 16)): peer asks for interval \(parameters.intervalMin)-\(parameters.intervalMax)")
        case .readRemoteFeaturesComplete, .dataLengthChange, .phyUpdateComplete, .unknown:
            break
        }
    }

    /// A command finished (Command Complete, or Command Status for commands that continue with
    /// another event).
    mutating func commandAnswered(_ purpose: CommandPurpose, status: HCI.Status, returnParameters: [UInt8]?, at now: MonotonicInstant) {
        switch purpose {
        case .bringUp(let step):
            bringUpAnswered(step, status: status, returnParameters: returnParameters ?? [], at: now)
        case .scanParameters:
            if !status.isSuccess { log(.warning, "LE Set Scan Parameters failed: \(status)") }
        case .scanEnable(let enable):
            if status.isSuccess || (!enable && status == .commandDisallowed) {
                if enable, case .starting(let active) = scanner.state { scanner.state = .scanning(active: active) }
                if !enable { scanner.state = .stopped }
            } else {
                log(.warning, "LE Set Scan Enable(\(enable)) failed: \(status)")
                scanner.state = enable ? .stopped : scanner.state
                if enable { scanner.wanted = nil }
            }
            reconcileScanning()
        case .createConnection(let peer):
            if !status.isSuccess {
                if case .creating(let p, _) = connector, p == peer { connector = .idle }
                emit(.connectionFailed(peer: peer, reason: "controller refused LE Create Connection: \(status)"))
                advanceConnector(at: now)
            }
        case .cancelConnection:
            if !status.isSuccess, case .cancelling(let peer, _) = connector {
                // Command Disallowed: no attempt was pending any more (it completed meanwhile).
                log(.debug, "\(peer): cancel answered \(status)")
            }
        case .disconnect(let handle):
            if !status.isSuccess {
                log(.warning, "Disconnect 0x\(String(handle, radix: 16)) failed: \(status)")
                if status == .unknownConnectionIdentifier {
                    dropConnection(handle, reason: .localHostTerminated, note: "controller no longer knew the connection")
                } else {
                    // Refused: the link stays up, so it must carry data again and may be disconnected later.
                    connections[handle]?.disconnecting = false
                }
            }
        case .connectionUpdate(let handle):
            if !status.isSuccess { log(.notice, "0x\(String(handle, radix: 16)): connection update refused: \(status)") }
        case .enableEncryption(let handle):
            if !status.isSuccess { encryptionChanged(handle: handle, status: status, enabled: false, at: now) }
        case .optional(let what):
            if !status.isSuccess { log(.debug, "\(what): \(status)") }
        }
    }

    // MARK: bring-up

    mutating func bringUpAnswered(_ step: BringUpStep, status: HCI.Status, returnParameters p: [UInt8], at now: MonotonicInstant) {
        guard case .bringingUp(let current) = controller, current == step else { return }
        // A controller may refuse Write LE Host Support (LE-only parts have no such setting),
        // and refuses to stop a scan it is not running (Command Disallowed): both are fine.
        guard status.isSuccess || step == .writeLEHostSupport || step == .stopScanning else {
            return fail("controller bring-up failed at \(step): \(status)")
        }
        do {
            switch step {
            case .readLocalVersion:
                let v = try HCI.ReadLocalVersionInformation.Return(returnParameters: p)
                info.hciVersion = v.hciVersion
                info.manufacturer = v.manufacturer
            case .leReadBufferSize:
                let b = try HCI.LEReadBufferSize.Return(returnParameters: p)
                if b.leACLDataPacketLength > 0 && b.totalNumLEACLDataPackets > 0 {
                    info.aclPacketLength = Int(b.leACLDataPacketLength)
                    info.aclPackets = Int(b.totalNumLEACLDataPackets)
                    return advanceBringUp(after: .readBufferSize, at: now)  // no BR/EDR fallback needed
                }
            case .readBufferSize:
                let b = try HCI.ReadBufferSize.Return(returnParameters: p)
                info.aclPacketLength = Int(b.aclDataPacketLength)
                info.aclPackets = Int(b.totalNumACLDataPackets)
            case .leReadLocalFeatures:
                info.leFeatures = try HCI.LEReadLocalSupportedFeatures.Return(returnParameters: p).features
            case .readBDADDR:
                info.publicAddress = try HCI.ReadBDADDR.Return(returnParameters: p).address
            default:
                break
            }
        } catch {
            return fail("controller bring-up: malformed answer to \(step): \(error)")
        }
        advanceBringUp(after: step, at: now)
    }

    /// Bring-up is over (or, on a replay, not needed): the owner may scan and connect.
    mutating func becomeReady(at now: MonotonicInstant) {
        controller = .ready
        info.staticAddress = configuration.staticAddress
        acl.configure(packetLength: info.aclPacketLength, totalPackets: info.aclPackets)
        emit(.controllerReady(info))
        reconcileScanning()
        advanceConnector(at: now)
    }

    mutating func advanceBringUp(after step: BringUpStep, at now: MonotonicInstant) {
        guard let next = BringUpStep(rawValue: step.rawValue + 1) else {
            log(.info, "controller ready: public \(info.publicAddress), using random static \(configuration.staticAddress), LE ACL \(info.aclPackets)×\(info.aclPacketLength) bytes")
            return becomeReady(at: now)
        }
        controller = .bringingUp(next)
        switch next {
        case .reset: commands.enqueue(HCI.Reset(), purpose: .bringUp(next))
        case .stopScanning: commands.enqueue(HCI.LESetScanEnable(enable: false), purpose: .bringUp(next))
        case .readLocalVersion: commands.enqueue(HCI.ReadLocalVersionInformation(), purpose: .bringUp(next))
        case .writeLEHostSupport: commands.enqueue(HCI.WriteLEHostSupport(), purpose: .bringUp(next))
        case .setEventMask: commands.enqueue(HCI.SetEventMask(), purpose: .bringUp(next))
        case .leSetEventMask:
            // Without bit 5 (LE Remote Connection Parameter Request) the controller rejects the
            // peer's LL request itself and the peer falls back to the L2CAP request we answer;
            // unmasked, the event needs a reply command we do not send, and the link would drop.
            let mask = HCI.LESetEventMask.vigilDefault & ~(1 << 5)
            commands.enqueue(HCI.LESetEventMask(mask: mask), purpose: .bringUp(next))
        case .leReadBufferSize: commands.enqueue(HCI.LEReadBufferSize(), purpose: .bringUp(next))
        case .readBufferSize: commands.enqueue(HCI.ReadBufferSize(), purpose: .bringUp(next))
        case .leReadLocalFeatures: commands.enqueue(HCI.LEReadLocalSupportedFeatures(), purpose: .bringUp(next))
        case .readBDADDR: commands.enqueue(HCI.ReadBDADDR(), purpose: .bringUp(next))
        case .leSetRandomAddress:
            // Bumble drops a public-address central's ACL data; a random static address works
            // with every controller (docs/bumble-peer.md §Controller quirks a central must
            // survive).
            commands.enqueue(HCI.LESetRandomAddress(address: configuration.staticAddress), purpose: .bringUp(next))
        }
    }

    // MARK: scanning

    /// Moves the controller's scan state toward what the owner wants, one command at a time.
    mutating func reconcileScanning() {
        guard controller == .ready else { return }
        switch (scanner.state, scanner.wanted) {
        case (.stopped, let active?):
            scanner.state = .starting(active: active)
            commands.enqueue(HCI.LESetScanParameters(active: active, interval: configuration.scanInterval, window: configuration.scanWindow, ownAddressType: .random), purpose: .scanParameters)
            commands.enqueue(HCI.LESetScanEnable(enable: true, filterDuplicates: false), purpose: .scanEnable(true))
        case (.scanning(let active), let wanted) where wanted != active:
            scanner.state = .stopping
            commands.enqueue(HCI.LESetScanEnable(enable: false), purpose: .scanEnable(false))
        default:
            break
        }
    }
}
