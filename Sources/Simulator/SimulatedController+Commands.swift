import Bluetooth
import Clocks
import HCI
import Wire

// Command handling (Core v5.4 Vol 4 Part E §7). Each command is answered by Command Complete
// with return parameters, or by Command Status followed later by its own event, as its section
// in §7 prescribes.

extension SimulatedController {
    /// Commands whose section says "Command Status, then an event"; the rest complete at once.
    static let statusCommands: Set<HCI.Opcode> = [
        HCI.Disconnect.opcode, HCI.ReadRemoteVersionInformation.opcode, HCI.LECreateConnection.opcode,
        HCI.LEConnectionUpdate.opcode, HCI.LEEnableEncryption.opcode,
    ]

    mutating func receiveCommand(_ bytes: [UInt8]) {
        guard hostCommandCredits > 0 else {
            let opcode = bytes.count >= 2 ? UInt16(bytes[0]) | UInt16(bytes[1]) << 8 : 0
            violations.append(.commandWithoutCredit(opcode: opcode))
            return
        }
        hostCommandCredits -= 1
        guard let packet = try? HCI.CommandPacket(bytes: bytes) else {
            violations.append(.malformedCommand(bytes))
            // A readable opcode still gets an answer, so a host's credit is not lost forever.
            if bytes.count >= 2 { reply(HCI.Opcode(rawValue: UInt16(bytes[0]) | UInt16(bytes[1]) << 8), status: .invalidParameters) }
            return
        }
        if unansweredOpcodes.contains(packet.opcode) { return }
        do {
            try execute(packet)
        } catch {
            reply(packet.opcode, status: .invalidParameters)
        }
    }

    /// Answers with just a status, in the form the command's section prescribes.
    mutating func reply(_ opcode: HCI.Opcode, status: HCI.Status) {
        if Self.statusCommands.contains(opcode) {
            commandStatus(opcode, status)
        } else {
            commandComplete(opcode, [status.rawValue])
        }
    }

    mutating func commandComplete(_ opcode: HCI.Opcode, _ returnParameters: [UInt8]) {
        let credits = configuration.commandCredits
        emit(HCI.CommandComplete(numCommandPackets: credits, opcode: opcode, returnParameters: returnParameters).eventBytes, commandCredits: credits)
    }

    mutating func commandStatus(_ opcode: HCI.Opcode, _ status: HCI.Status) {
        let credits = configuration.commandCredits
        emit(HCI.CommandStatus(status: status, numCommandPackets: credits, opcode: opcode).eventBytes, commandCredits: credits)
    }

    private mutating func execute(_ p: HCI.CommandPacket) throws(WireError) {
        let ok = HCI.Status.success.rawValue
        switch p.opcode {
        case HCI.Reset.opcode:
            _ = try p.decode(as: HCI.Reset.self)
            reset()
            commandComplete(p.opcode, [ok])
        case HCI.ReadLocalVersionInformation.opcode:
            _ = try p.decode(as: HCI.ReadLocalVersionInformation.self)
            // HCI/LMP version 0x0D = Core 5.4 (Assigned Numbers); company 0xFFFF = none (tests).
            commandComplete(p.opcode, HCI.ReadLocalVersionInformation.Return(
                hciVersion: 0x0D, hciSubversion: 0x0001, lmpVersion: 0x0D, manufacturer: 0xFFFF, lmpSubversion: 0x0001).returnParameters)
        case HCI.ReadLocalSupportedFeatures.opcode:
            _ = try p.decode(as: HCI.ReadLocalSupportedFeatures.self)
            // LMP features page 0 (Vol 2 Part C §3.3): bit 37 BR/EDR Not Supported, bit 38 LE
            // Supported (Controller), both in byte 4: an LE-only controller.
            commandComplete(p.opcode, [ok, 0, 0, 0, 0, 0x60, 0, 0, 0])
        case HCI.ReadBufferSize.opcode:
            _ = try p.decode(as: HCI.ReadBufferSize.self)
            var w = ByteWriter()
            w.write(ok); w.write(configuration.aclDataPacketLength); w.write(UInt8(0))
            w.write(configuration.totalNumACLDataPackets); w.write(UInt16(0))
            commandComplete(p.opcode, w.bytes)
        case HCI.ReadBDADDR.opcode:
            _ = try p.decode(as: HCI.ReadBDADDR.self)
            commandComplete(p.opcode, HCI.ReadBDADDR.Return(address: configuration.publicAddress).returnParameters)
        case HCI.SetEventMask.opcode:
            eventMask = try p.decode(as: HCI.SetEventMask.self)!.mask
            commandComplete(p.opcode, [ok])
        case HCI.LESetEventMask.opcode:
            leEventMask = try p.decode(as: HCI.LESetEventMask.self)!.mask
            commandComplete(p.opcode, [ok])
        case HCI.WriteLEHostSupport.opcode:
            _ = try p.decode(as: HCI.WriteLEHostSupport.self)
            commandComplete(p.opcode, [ok])
        case HCI.LEReadBufferSize.opcode:
            _ = try p.decode(as: HCI.LEReadBufferSize.self)
            commandComplete(p.opcode, HCI.LEReadBufferSize.Return(
                leACLDataPacketLength: configuration.leACLDataPacketLength,
                totalNumLEACLDataPackets: configuration.totalNumLEACLDataPackets).returnParameters)
        case HCI.LEReadLocalSupportedFeatures.opcode:
            _ = try p.decode(as: HCI.LEReadLocalSupportedFeatures.self)
            var w = ByteWriter()
            w.write(ok); w.write(configuration.leFeatures)
            commandComplete(p.opcode, w.bytes)
        case HCI.LESetRandomAddress.opcode:
            let c = try p.decode(as: HCI.LESetRandomAddress.self)!
            // Not while scanning or initiating (§7.8.4).
            guard scan == nil, pendingConnection == nil else { return reply(p.opcode, status: .commandDisallowed) }
            randomAddress = c.address
            commandComplete(p.opcode, [ok])
        case HCI.LESetScanParameters.opcode:
            let c = try p.decode(as: HCI.LESetScanParameters.self)!
            guard scan == nil else { return reply(p.opcode, status: .commandDisallowed) }
            guard (0x0004...0x4000).contains(c.interval), (0x0004...0x4000).contains(c.window), c.window <= c.interval else {
                return reply(p.opcode, status: .invalidParameters)
            }
            scanParameters = c
            commandComplete(p.opcode, [ok])
        case HCI.LESetScanEnable.opcode:
            let c = try p.decode(as: HCI.LESetScanEnable.self)!
            if c.enable {
                // A random own address needs LE Set Random Address first (§7.8.11).
                guard scanParameters.ownAddressType == .public || randomAddress != nil else {
                    return reply(p.opcode, status: .invalidParameters)
                }
                startListening()
                // Enabling again only changes duplicate filtering, which starts afresh (§7.8.11).
                scan = ScanState(parameters: scanParameters, filterDuplicates: c.filterDuplicates)
            } else {
                scan = nil
            }
            commandComplete(p.opcode, [ok])
        case HCI.LECreateConnection.opcode:
            try createConnection(try p.decode(as: HCI.LECreateConnection.self)!)
        case HCI.LECreateConnectionCancel.opcode:
            _ = try p.decode(as: HCI.LECreateConnectionCancel.self)
            guard let pending = pendingConnection else { return reply(p.opcode, status: .commandDisallowed) }
            pendingConnection = nil
            commandComplete(p.opcode, [ok])
            // §7.8.13: the cancelled attempt ends in LE Connection Complete with Unknown Connection Identifier.
            emit(HCI.LEConnectionComplete(status: .unknownConnectionIdentifier, handle: 0, role: .central, peer: pending.command.peer,
                                          interval: 0, latency: 0, supervisionTimeout: 0).eventBytes)
        case HCI.LEConnectionUpdate.opcode:
            let c = try p.decode(as: HCI.LEConnectionUpdate.self)!
            let handle = c.handle & 0x0FFF
            guard connections[handle] != nil else { return reply(p.opcode, status: .unknownConnectionIdentifier) }
            guard c.parameters.isValid else { return reply(p.opcode, status: .invalidParameters) }
            commandStatus(p.opcode, .success)
            timers.append((now + configuration.connectionUpdateDelay, .connectionUpdateComplete(handle: handle, parameters: c.parameters)))
        case HCI.Disconnect.opcode:
            let c = try p.decode(as: HCI.Disconnect.self)!
            guard connections[c.handle] != nil else { return reply(p.opcode, status: .unknownConnectionIdentifier) }
            // Reasons the host may give (§7.1.6).
            guard [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B].contains(c.reason.rawValue) else {
                return reply(p.opcode, status: .invalidParameters)
            }
            commandStatus(p.opcode, .success)
            // The initiating side reports Connection Terminated By Local Host (§7.7.5).
            closeConnection(c.handle, reason: .localHostTerminated, at: now)
        case HCI.ReadRemoteVersionInformation.opcode:
            let c = try p.decode(as: HCI.ReadRemoteVersionInformation.self)!
            let handle = c.handle & 0x0FFF
            guard connections[handle] != nil else { return reply(p.opcode, status: .unknownConnectionIdentifier) }
            commandStatus(p.opcode, .success)
            emit(HCI.eventPacket(code: HCI.Event.Code.readRemoteVersionComplete) { w in
                w.write(UInt8(0)); w.write(handle); w.write(UInt8(0x0D)); w.write(UInt16(0xFFFF)); w.write(UInt16(0x0001))
            })
        case HCI.LEEnableEncryption.opcode:
            enableEncryption(try p.decode(as: HCI.LEEnableEncryption.self)!)
        case HCI.LERand.opcode:
            _ = try p.decode(as: HCI.LERand.self)
            var w = ByteWriter()
            w.write(ok); w.write(nextRandom())
            commandComplete(p.opcode, w.bytes)
        default:
            // §4.5: a command the controller does not know is answered with Unknown HCI Command.
            commandComplete(p.opcode, [HCI.Status.unknownCommand.rawValue])
        }
    }

    /// HCI_Reset (§7.3.2): back to the power-on state. Open links vanish without Disconnection
    /// Complete events, as the spec's Reset drops all state.
    private mutating func reset() {
        for handle in connections.keys { peripheralIndex(for: handle).map { radio.peripherals[$0].linkClosed(at: now) } }
        connections.removeAll()
        scan = nil
        pendingConnection = nil
        timers.removeAll()
        randomAddress = nil
        eventMask = Self.defaultEventMask
        leEventMask = Self.defaultLEEventMask
        nextHandle = 0x0040
        scanParameters = HCI.LESetScanParameters(active: false, interval: 0x0010, window: 0x0010, ownAddressType: .public)
        hostACLCredits = configuration.leACLDataPacketLength == 0
            ? Int(configuration.totalNumACLDataPackets) : Int(configuration.totalNumLEACLDataPackets)
    }

    private mutating func createConnection(_ c: HCI.LECreateConnection) throws(WireError) {
        let opcode = HCI.LECreateConnection.opcode
        guard pendingConnection == nil else { return reply(opcode, status: .commandDisallowed) }
        guard c.ownAddressType == .public || randomAddress != nil else { return reply(opcode, status: .invalidParameters) }
        guard c.parameters.isValid, c.scanWindow <= c.scanInterval else { return reply(opcode, status: .invalidParameters) }
        // The filter accept list is not simulated: say so rather than connect to the wrong peer.
        guard !c.useFilterAcceptList else { return reply(opcode, status: HCI.Status(0x11)) }  // Unsupported Feature or Parameter Value
        if connections.values.contains(where: { $0.peer.address == c.peer.address }) {
            return reply(opcode, status: HCI.Status(0x0B))  // Connection Already Exists
        }
        guard connections.count < configuration.maximumConnections else { return reply(opcode, status: .connectionLimitExceeded) }
        commandStatus(opcode, .success)
        startListening()
        pendingConnection = PendingConnection(command: c)
    }

    /// LE Enable Encryption (§7.8.24) against the peripheral's key for (EDIV, Rand).
    ///
    /// The outcomes follow the link layer's encryption start procedure (Vol 6 Part B §5.1.3.1):
    /// - keys equal: Encryption Change, enabled (Encryption Key Refresh Complete if the link was
    ///   already encrypted, §7.7.39);
    /// - the peripheral has no key: its link layer answers LL_REJECT_EXT_IND with PIN or Key
    ///   Missing, which our host sees as Encryption Change with status 0x06, link unencrypted;
    /// - keys differ: the session keys differ, the first encrypted PDU fails its MIC and the link
    ///   is terminated: Disconnection Complete with reason 0x3D.
    private mutating func enableEncryption(_ c: HCI.LEEnableEncryption) {
        let opcode = HCI.LEEnableEncryption.opcode
        let handle = c.handle & 0x0FFF
        guard let connection = connections[handle], let index = peripheralIndex(for: handle) else {
            return reply(opcode, status: .unknownConnectionIdentifier)
        }
        commandStatus(opcode, .success)
        let key = radio.peripherals[index].longTermKey(ediv: c.ediv, rand: c.random)
        guard let key else {
            emit(HCI.EncryptionChange(status: .pinOrKeyMissing, handle: handle, enabled: false).eventBytes)
            return
        }
        guard key == c.longTermKey else {
            closeConnection(handle, reason: .terminatedMICFailure, at: now)
            return
        }
        if connection.isEncrypted {
            emit(HCI.eventPacket(code: HCI.Event.Code.encryptionKeyRefreshComplete) { w in w.write(UInt8(0)); w.write(handle) })
        } else {
            connections[handle]?.isEncrypted = true
            emit(HCI.EncryptionChange(status: .success, handle: handle, enabled: true).eventBytes)
        }
        radio.peripherals[index].encryptionChanged(enabled: true, at: now)
    }
}
