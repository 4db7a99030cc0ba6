import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

extension TransmitterSlot {
    /// What the appliance routes to a slot: host events about its peer or its link, time, and
    /// other transmitters' calibrations.
    enum Input: Sendable, Equatable {
        /// The controller came up (again): a slot without a link searches anew.
        case controllerReady
        /// Time passed; the slot acts on whatever of its deadlines is due.
        case deadline
        /// An advertisement the slot is looking for (`isLookingFor`), from a peer no other slot holds.
        case advertisement(from: DeviceAddress)
        case connected(handle: UInt16, peer: DeviceAddress)
        case connectionFailed(peer: DeviceAddress, reason: String)
        case disconnected(peer: DeviceAddress, reason: String)
        case gatt(GATTClient.RequestID, GATTClient.Result)
        case value(attribute: UInt16, [UInt8], origin: ValueOrigin)
        case encrypted(bonded: Bool)
        case encryptionFailed(reason: String, bondRejected: Bool)
        case paired(secureConnections: Bool)
        case pairingFailed(reason: String)
        /// A fingerstick from another transmitter (a meter), a calibration point for this one.
        case calibration(GlucoseConcentration, takenAt: MonotonicInstant)
    }

    /// What the appliance must do for a slot, in the order the slot produced them.
    enum Effect: Sendable, Equatable {
        case event(ApplianceEvent)
        case connect(DeviceAddress)
        case disconnect(handle: UInt16)
        case secure(handle: UInt16)
        case pair(handle: UInt16)
        case forgetBond(DeviceAddress)
        /// A GATT procedure on the link. The host names it by an ID, which the appliance hands
        /// back (`sent(_:as:)`) so that the result finds its request.
        case gatt(GATTClient.Operation, handle: UInt16, for: Request)
        /// The transmitter answered from this peer: remember it for the next run, and tell the
        /// slot if that is news (`remembered(_:)`).
        case remember(DeviceAddress)
        /// A meter's fingerstick: a calibration point for every other transmitter.
        case calibrateOthers(GlucoseConcentration, takenAt: Reading.Time)
    }

    /// One input's work in progress.
    struct Step {
        let now: MonotonicInstant
        /// Whether the host has the link encrypted: a driver's request to pair is then answered at once.
        let linkIsEncrypted: Bool
        var effects: [Effect] = []

        mutating func emit(_ event: ApplianceEvent) { effects.append(.event(event)) }
    }

    /// One step of the state machine.
    mutating func receive(_ input: Input, at now: MonotonicInstant, linkIsEncrypted: Bool = false) -> [Effect] {
        var step = Step(now: now, linkIsEncrypted: linkIsEncrypted)
        switch input {
        case .controllerReady:
            if handle == nil { state = .searching }
        case .deadline:
            deadlinePassed(&step)
        case .advertisement(let address):
            guard state == .searching else { break }
            state = .connecting(to: address)
            peer = address  // watched while searching again (`watchedPeer`)
            step.emit(.connecting(device, peer: address))
            step.effects.append(.connect(address))
        case let .connected(handle, address):
            guard state == .connecting(to: address) else { break }
            peer = address
            link.connectedSince = now
            if securityFirst {
                state = .securing(handle: handle)
                step.effects.append(.secure(handle: handle))
            } else {
                discover(handle, &step)
            }
        case let .connectionFailed(address, reason):
            guard state == .connecting(to: address) else { break }
            step.emit(.transmitter(device, peer: address, .disconnected(reason: "could not connect: \(reason)")))
            linkEnded(at: now)
        case let .disconnected(address, reason):
            guard let handle else { break }
            perform(driver.receive(.disconnected(reason: reason), at: now), on: handle, &step, linkGone: true)
            let why = link.closingReason.map { "\($0); link: \(reason)" } ?? reason
            step.emit(.transmitter(device, peer: address, .disconnected(reason: why)))
            // A transmitter that answered (a session that did its work, or a drop after the
            // driver began), or a link that ran for a while, is tried again at once: the end of
            // a session or a drop, not a failing device. One that refused is not hammered.
            if link.progress.answered { backoff = .seconds(1) }
            if let since = link.connectedSince, now - since > Self.longLink { backoff = .seconds(1) }
            linkEnded(at: now)
        case let .gatt(id, result):
            gattAnswered(id, result, &step)
        case let .value(attribute, bytes, origin):
            valueArrived(attribute: attribute, bytes, origin: origin, &step)
        case .encrypted(let bonded):
            guard let peer, let handle else { break }
            step.emit(.encrypted(device, peer: peer, bonded: bonded))
            encryptionReady(handle, &step)
        case let .encryptionFailed(reason, bondRejected):
            guard let peer, let handle else { break }
            if bondRejected && !retriedPairingAfterBondLoss {
                // The peer forgot us (reset, re-paired elsewhere): pair afresh, once.
                retriedPairingAfterBondLoss = true
                step.effects += [.forgetBond(peer), .pair(handle: handle)]
                break
            }
            securityFailed(handle, reason: "encryption failed: \(reason)", &step)
        case .paired(let secureConnections):
            guard let peer, handle != nil else { break }
            retriedPairingAfterBondLoss = false
            step.emit(.paired(device, peer: peer, secureConnections: secureConnections))
        case .pairingFailed(let reason):
            guard let handle else { break }
            securityFailed(handle, reason: reason, &step)
        case let .calibration(reference, takenAt):
            if case .running(let handle) = state {
                perform(driver.receive(.calibration(reference, takenAt: takenAt), at: now), on: handle, &step)
            } else {
                pendingCalibrations.append((reference, takenAt))
                if pendingCalibrations.count > Self.pendingCalibrationLimit { pendingCalibrations.removeFirst() }
            }
        }
        return step.effects
    }

    /// The host started the GATT request the slot asked for (`Effect.gatt`) under this ID.
    mutating func sent(_ request: Request, as id: GATTClient.RequestID) {
        link.requests[id] = request
    }

    /// The peer was remembered as this transmitter's (`Effect.remember`): search for it by address.
    mutating func remembered(_ address: DeviceAddress) {
        matcher.remembered = address
    }

    // MARK: transitions

    private mutating func deadlinePassed(_ step: inout Step) {
        if let retry = link.closeRetryAt, step.now >= retry, let handle {
            // Still up: the controller refused the Disconnect (the host logged why).
            close(handle, reason: link.closingReason ?? "closing", &step)
        }
        switch state {
        case .waitingToReconnect(let until), .waitingForNextReading(let until):
            if step.now >= until { state = .searching }
        case .running(let handle):
            if let due = driver.nextDeadline, step.now >= due {
                perform(driver.handleDeadline(at: step.now), on: handle, &step)
            }
        default:
            break
        }
    }

    /// Asks the host to close the link; `reason` goes into the `disconnected` event when the
    /// host reports the link gone. Asked again every `closeRetryInterval` until it is.
    mutating func close(_ handle: UInt16, reason: String, _ step: inout Step) {
        link.closingReason = link.closingReason ?? reason
        link.closeRetryAt = step.now + Self.closeRetryInterval
        step.effects.append(.disconnect(handle: handle))
    }

    /// The link is gone, or never came. The next session is due when the driver said the
    /// transmitter will have something new (a paced session that did its work), else after the
    /// back-off, which doubles up to `maximumBackoff` while sessions keep failing. A transmitter
    /// that stays connectable is thus read once per reading it makes, not hammered
    /// (docs/reading-identity.md).
    private mutating func linkEnded(at now: MonotonicInstant) {
        let ended = link
        link = Link()
        if ended.progress == .delivered, let next = ended.nextSessionAt, next > now {
            state = .waitingForNextReading(until: next)
            return
        }
        state = .waitingToReconnect(until: now + backoff)
        backoff = min(backoff * 2, Self.maximumBackoff)
    }

    private mutating func encryptionReady(_ handle: UInt16, _ step: inout Step) {
        switch state {
        case .securing:
            discover(handle, &step)
        case .running where link.driverAwaitsEncryption:
            link.driverAwaitsEncryption = false
            perform(driver.receive(.encrypted, at: step.now), on: handle, &step)
        default:
            break
        }
    }

    private mutating func securityFailed(_ handle: UInt16, reason: String, _ step: inout Step) {
        step.emit(.transmitter(device, peer: peer, .pairingFailed(reason: reason)))
        switch state {
        case .running where link.driverAwaitsEncryption:
            link.driverAwaitsEncryption = false
            perform(driver.receive(.pairingFailed(reason: reason), at: step.now), on: handle, &step)
        case .securing:
            close(handle, reason: "could not secure the link", &step)
        default:
            break
        }
    }

    private mutating func discover(_ handle: UInt16, _ step: inout Step) {
        // The result comes as a later input, even when the host answers from its bond cache:
        // the appliance hands the request's ID back first.
        state = .discovering(handle: handle)
        step.effects.append(.gatt(.discoverDatabase, handle: handle, for: .discovery))
    }

    private mutating func databaseDiscovered(_ database: GATT.Database, handle: UInt16, _ step: inout Step) {
        link.database = database
        let discovered = DiscoveredServices(database)
        if let missing = driver.profile.missingRequirement(in: discovered) {
            link.progress.reach(.refused)
            step.emit(.transmitter(device, peer: peer, .incompatible(reason: missing)))
            close(handle, reason: "incompatible", &step)
            return
        }
        if let peer, driver.profile.remembersPeer == .whenDiscovered { step.effects.append(.remember(peer)) }
        state = .running(handle: handle)
        var actions = driver.start(discovered, at: step.now)
        for (reference, takenAt) in pendingCalibrations {
            actions += driver.receive(.calibration(reference, takenAt: takenAt), at: step.now)
        }
        pendingCalibrations.removeAll()
        perform(actions, on: handle, &step)
    }

    private mutating func gattAnswered(_ id: GATTClient.RequestID, _ result: GATTClient.Result, _ step: inout Step) {
        guard let handle, let request = link.requests.removeValue(forKey: id) else { return }
        switch request {
        case .discovery:
            guard case .discovering = state else { return }
            switch result {
            case .database(let database):
                databaseDiscovered(database, handle: handle, &step)
            case .failed(let failure) where failure.needsSecurity && !securityFirst:
                state = .securing(handle: handle)
                step.effects.append(.secure(handle: handle))
            case .failed(let failure):
                link.progress.reach(.refused)
                step.emit(.transmitter(device, peer: peer, .incompatible(reason: "discovery failed: \(failure)")))
                close(handle, reason: "discovery failed", &step)
            default:
                break
            }
        case .driver(let operation):
            perform(driver.receive(Self.answer(to: operation, result), at: step.now), on: handle, &step)
        }
    }

    private mutating func valueArrived(attribute: UInt16, _ bytes: [UInt8], origin: ValueOrigin, _ step: inout Step) {
        guard case .running(let handle) = state else { return }
        guard let characteristic = link.database?.characteristic(valueHandle: attribute) else {
            if let count = ignoredValues.count(at: step.now) {
                step.emit(.ignoredValues(device, peer: peer, attribute: attribute, count: count))
            }
            return
        }
        perform(driver.receive(.value(characteristic.uuid, bytes, origin: origin), at: step.now), on: handle, &step)
    }
}

extension DiscoveredServices {
    /// What a driver sees of a discovered database: each service's characteristics, by UUID.
    init(_ database: GATT.Database) {
        var services: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]
        for entry in database.entries where services[entry.service.uuid] == nil {
            services[entry.service.uuid] = entry.characteristics.map {
                DiscoveredCharacteristic($0.uuid, properties: CharacteristicProperties(rawValue: $0.properties.rawValue))
            }
        }
        self.init(services)
    }
}
