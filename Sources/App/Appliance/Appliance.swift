import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

/// The appliance's Bluetooth side: finds each configured transmitter, connects, secures,
/// discovers, runs its driver, and reconnects with backoff when the link drops — forever.
///
/// Sans-IO like everything in the core: host events and deadlines in, host calls and
/// `ApplianceEvent`s out. Drivers see characteristic UUIDs; this type maps them to handles.
public struct Appliance: Sendable {
    public struct Device: Sendable {
        public enum Transmitter: Sendable {
            /// A transmitter Vigil connects to, run by its driver.
            case connected(any TransmitterDriver)
            /// A transmitter read from its advertisements alone.
            case broadcast(any BroadcastDecoder)
        }

        public var transmitter: Transmitter
        /// Pair before use (the configuration's `pair = true`), even if the profile does not require it.
        public var pair: Bool
        /// A fixed address from the configuration: match this peer only.
        public var address: Address?
        /// Overrides the profile's name prefix.
        public var namePrefix: String?

        public init(driver: any TransmitterDriver, pair: Bool = false, address: Address? = nil, namePrefix: String? = nil) {
            self.transmitter = .connected(driver)
            self.pair = pair
            self.address = address
            self.namePrefix = namePrefix
        }

        public init(decoder: any BroadcastDecoder, address: Address? = nil, namePrefix: String? = nil) {
            self.transmitter = .broadcast(decoder)
            self.pair = false
            self.address = address
            self.namePrefix = namePrefix
        }
    }

    var slots: [TransmitterSlot]
    var broadcasters: [BroadcastSlot]
    public private(set) var remembered: RememberedTransmitters
    let activeScan: Bool
    var events: [ApplianceEvent] = []
    var controllerUp = false

    /// `driverStates`: what drivers saved in an earlier run (`ApplianceEvent.driverState`).
    public init(devices: [Device], remembered: RememberedTransmitters, activeScan: Bool = true, driverStates: [DeviceID: [String: String]] = [:]) {
        self.remembered = remembered
        self.activeScan = activeScan
        var slots: [TransmitterSlot] = []
        var broadcasters: [BroadcastSlot] = []
        for d in devices {
            switch d.transmitter {
            case .connected(var driver):
                if var persistent = driver as? any PersistentDriverState, let saved = driverStates[driver.device] {
                    persistent.restore(saved)
                    if let restored = persistent as? any TransmitterDriver { driver = restored }
                }
                let profile = driver.profile
                let known = remembered.address(for: driver.device)
                var matcher = TransmitterMatcher(profile: profile, remembered: known)
                if let prefix = d.namePrefix { matcher.namePrefix = prefix }
                // A configured address that differs from the remembered one: the configuration
                // changed, so the remembered peer is stale.
                if let fixed = d.address, known?.address != fixed { matcher.remembered = nil }
                slots.append(TransmitterSlot(device: driver.device, driver: driver, matcher: matcher,
                                             securityFirst: d.pair || profile.security == .encryptionRequired,
                                             fixedAddress: d.address))
            case .broadcast(let decoder):
                let known = remembered.address(for: decoder.device)
                broadcasters.append(BroadcastSlot(decoder: decoder, remembered: d.address == nil || known?.address == d.address ? known : nil,
                                                  fixedAddress: d.address, namePrefix: d.namePrefix))
            }
        }
        self.slots = slots
        self.broadcasters = broadcasters
    }

    /// Events since the last call.
    public mutating func takeEvents() -> [ApplianceEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    public var nextDeadline: MonotonicInstant? { earliest(slots.map(\.nextDeadline) + broadcasters.map(\.nextDeadline)) }

    /// Snapshot for `vigil status` and logs: each device's state in words.
    public var deviceStates: [(DeviceID, String)] {
        slots.map { slot in
            let words: String = switch slot.state {
            case .searching: "searching"
            case .waitingToReconnect: "waiting to reconnect"
            case .waitingForNextReading: "waiting for the next reading"
            case .connecting(let p): "connecting to \(p)"
            case .securing: "securing the link"
            case .discovering: "discovering services"
            case .running: "connected"
            }
            return (slot.device, words)
        } + broadcasters.map { ($0.device, $0.remembered.map { "listening to \($0)" } ?? "listening") }
    }

    // MARK: inputs

    public mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        controllerUp = true
        events.append(.bluetooth(.poweredOn))
        for i in slots.indices where slots[i].handle == nil {
            slots[i].state = .searching
        }
        for i in broadcasters.indices { broadcasters[i].decoder.start(at: now) }
        updateScanning(host: &host, at: now)
    }

    public mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        for i in slots.indices {
            if let retry = slots[i].closeRetryAt, now >= retry, let handle = slots[i].handle {
                // Still up: the controller refused the Disconnect (the host logged why).
                close(i, handle: handle, reason: slots[i].closingReason ?? "closing", host: &host, at: now)
            }
            switch slots[i].state {
            case .waitingToReconnect(let until) where now >= until:
                slots[i].state = .searching
            case .waitingForNextReading(let until) where now >= until:
                slots[i].state = .searching
            case .running(let handle):
                if let d = slots[i].driver.nextDeadline, now >= d {
                    let actions = slots[i].driver.handleDeadline(at: now)
                    perform(actions, slot: i, handle: handle, host: &host, at: now)
                }
            default:
                break
            }
        }
        for i in broadcasters.indices {
            if let d = broadcasters[i].decoder.nextDeadline, now >= d {
                let produced = broadcasters[i].decoder.handleDeadline(at: now)
                report(produced, device: broadcasters[i].device, peer: broadcasters[i].remembered)
            }
        }
        updateScanning(host: &host, at: now)
    }

    public mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        switch event {
        case .controllerReady:
            break  // controllerReady(host:at:) is called separately by the runner
        case .controllerFailed(let reason):
            controllerUp = false
            events.append(.bluetooth(.unavailable(reason: reason)))
        case .advertisement(let advertisement):
            advertisementSeen(advertisement, host: &host, at: now)
        case let .connected(handle, peer):
            guard let i = slots.firstIndex(where: { $0.state == .connecting(peer) }) else {
                // Not ours (a stale attempt): let it go.
                host.disconnect(handle: handle, at: now)
                return
            }
            slots[i].peer = peer
            slots[i].connectedSince = now
            if slots[i].securityFirst {
                slots[i].state = .securing(handle: handle)
                host.secure(handle: handle, at: now)
            } else {
                discover(i, handle: handle, host: &host, at: now)
            }
        case let .connectionFailed(peer, reason):
            guard let i = slots.firstIndex(where: { $0.state == .connecting(peer) }) else { return }
            events.append(.transmitter(slots[i].device, peer: peer, .disconnected(reason: "could not connect: \(reason)")))
            waitToReconnect(i, at: now)
        case let .disconnected(handle, peer, reason):
            guard let i = slots.firstIndex(where: { $0.handle == handle }) else { return }
            let actions = slots[i].driver.receive(.disconnected(reason: "\(reason)"), at: now)
            perform(actions, slot: i, handle: handle, host: &host, at: now, linkGone: true)
            let why = slots[i].closingReason.map { "\($0); link: \(reason)" } ?? "\(reason)"
            events.append(.transmitter(slots[i].device, peer: peer, .disconnected(reason: why)))
            // A transmitter that answered (a session that did its work, or a drop after the
            // driver began), or a link that ran for a while, is tried again at once: the end of
            // a session or a drop, not a failing device. One that refused is not hammered.
            if [.connected, .delivered].contains(slots[i].progress) { slots[i].backoff = .seconds(1) }
            if let since = slots[i].connectedSince, now - since > .seconds(60) { slots[i].backoff = .seconds(1) }
            waitToReconnect(i, at: now)
        case let .gatt(handle, id, result):
            gattResult(handle: handle, id: id, result: result, host: &host, at: now)
        case let .notification(handle, attribute, value):
            deliverValue(handle: handle, attribute: attribute, value: value, origin: .notification, host: &host, at: now)
        case let .indication(handle, attribute, value):
            deliverValue(handle: handle, attribute: attribute, value: value, origin: .indication, host: &host, at: now)
        case let .encryptionChanged(handle, enabled, bonded):
            guard enabled, let i = slots.firstIndex(where: { $0.handle == handle }), let peer = slots[i].peer else { return }
            events.append(.encrypted(slots[i].device, peer: peer, bonded: bonded))
            encryptionReady(i, handle: handle, host: &host, at: now)
        case let .encryptionFailed(handle, reason, bondRejected):
            guard let i = slots.firstIndex(where: { $0.handle == handle }), let peer = slots[i].peer else { return }
            if bondRejected && !slots[i].retriedPairingAfterBondLoss {
                // The peer forgot us (reset, re-paired elsewhere): pair afresh, once.
                slots[i].retriedPairingAfterBondLoss = true
                host.forgetBond(peer)
                host.pair(handle: handle, at: now)
                return
            }
            securityFailed(i, handle: handle, reason: "encryption failed: \(reason)", host: &host, at: now)
        case let .paired(handle, bond):
            guard let i = slots.firstIndex(where: { $0.handle == handle }), let peer = slots[i].peer else { return }
            slots[i].retriedPairingAfterBondLoss = false
            events.append(.paired(slots[i].device, peer: peer, secureConnections: bond.secureConnections))
        case let .pairingFailed(handle, reason):
            guard let i = slots.firstIndex(where: { $0.handle == handle }) else { return }
            securityFailed(i, handle: handle, reason: reason, host: &host, at: now)
        case .mtuExchanged, .connectionParametersChanged, .log:
            break
        }
    }

    // MARK: searching and connecting

    /// Scanning runs while any transmitter is being searched for (remembered ones included:
    /// Vigil connects the moment they advertise, which catches a Dexcom's short windows) and
    /// while any broadcast transmitter is configured.
    mutating func updateScanning(host: inout Host, at now: MonotonicInstant) {
        guard controllerUp else { return }
        let searching = slots.filter { $0.state == .searching }
        // The scanner reports an unchanged advertisement again only for watched peers. A peer
        // is remembered after discovery, so the one a slot last tried (refused pairing, link
        // dropped or connection failed before discovery) is watched too: otherwise its
        // unchanged advertisement is never reported again and the slot never reconnects.
        host.watch(Set(searching.compactMap { $0.matcher.remembered ?? $0.peer }))
        let wanted = !searching.isEmpty || !broadcasters.isEmpty
        if wanted && !host.isScanning { host.startScanning(active: activeScan, at: now) }
        if !wanted && host.isScanning { host.stopScanning(at: now) }
    }

    mutating func advertisementSeen(_ a: Advertisement, host: inout Host, at now: MonotonicInstant) {
        let summary = AdvertisementSummary(address: a.address, advertising: a.parsed, scanResponse: a.parsedScanResponse, rssi: a.rssi)
        // Broadcasters first: real ones are not connectable.
        for i in broadcasters.indices where broadcasters[i].matches(summary) {
            let produced = broadcasters[i].decoder.decode(summary, at: now)
            if broadcasters[i].remembered == nil, produced.containsReading {
                broadcasters[i].remembered = a.address
                if (try? remembered.rememberIfNew(a.address, for: broadcasters[i].device)) == true {
                    events.append(.rememberedAddress(broadcasters[i].device, a.address))
                }
            }
            let fresh = produced.filter { event in
                guard case .info(let info) = event else { return true }
                defer { broadcasters[i].lastInfo = info }
                return info != broadcasters[i].lastInfo
            }
            report(fresh, device: broadcasters[i].device, peer: a.address)
        }
        // A peer already claimed by one slot is not offered to another.
        let claimed = Set(slots.compactMap { s -> DeviceAddress? in
            if case .connecting(let p) = s.state { return p }
            return s.handle != nil ? s.peer : nil
        })
        guard a.isConnectable || a.scanResponse != nil, !claimed.contains(a.address) else { return }
        for i in slots.indices where slots[i].state == .searching && slots[i].matches(summary) {
            slots[i].state = .connecting(a.address)
            slots[i].peer = a.address  // watched while searching again (see updateScanning)
            events.append(.connecting(slots[i].device, peer: a.address))
            host.connect(a.address, at: now)
            break
        }
        updateScanning(host: &host, at: now)
    }

    /// Hands a broadcaster's events up: readings together, the rest one by one.
    mutating func report(_ produced: [TransmitterEvent], device: DeviceID, peer: DeviceAddress?) {
        var readings: [Reading] = []
        for event in produced {
            if case .reading(let r) = event { readings.append(r) } else { events.append(.transmitter(device, peer: peer, event)) }
        }
        if !readings.isEmpty { events.append(.readings(device, peer: peer, readings)) }
    }

    /// Closes slot `i`'s link; `reason` goes into the `disconnected` event when the host
    /// reports the link gone. Asked again every `closeRetryInterval` until it is.
    mutating func close(_ i: Int, handle: UInt16, reason: String, host: inout Host, at now: MonotonicInstant) {
        slots[i].closingReason = slots[i].closingReason ?? reason
        slots[i].closeRetryAt = now + TransmitterSlot.closeRetryInterval
        host.disconnect(handle: handle, at: now)
    }

    /// Schedules the next connection: when the driver said the transmitter will have something
    /// new (a paced session that did its work), else after the back-off, which doubles up to
    /// `maximumBackoff` while sessions keep failing. A transmitter that stays connectable is
    /// thus read once per reading it makes, not hammered (docs/reading-identity.md).
    mutating func waitToReconnect(_ i: Int, at now: MonotonicInstant) {
        slots[i].pending.removeAll()
        slots[i].database = nil
        slots[i].driverAwaitsEncryption = false
        slots[i].connectedSince = nil
        slots[i].closingReason = nil
        slots[i].closeRetryAt = nil
        defer {
            slots[i].progress = .none
            slots[i].nextSessionAt = nil
        }
        if slots[i].progress == .delivered, let next = slots[i].nextSessionAt, next > now {
            slots[i].state = .waitingForNextReading(until: next)
            return
        }
        slots[i].state = .waitingToReconnect(until: now + slots[i].backoff)
        slots[i].backoff = min(slots[i].backoff * 2, TransmitterSlot.maximumBackoff)
    }

    // MARK: security and discovery

    mutating func encryptionReady(_ i: Int, handle: UInt16, host: inout Host, at now: MonotonicInstant) {
        switch slots[i].state {
        case .securing:
            discover(i, handle: handle, host: &host, at: now)
        case .running where slots[i].driverAwaitsEncryption:
            slots[i].driverAwaitsEncryption = false
            let actions = slots[i].driver.receive(.encrypted, at: now)
            perform(actions, slot: i, handle: handle, host: &host, at: now)
        default:
            break
        }
    }

    mutating func securityFailed(_ i: Int, handle: UInt16, reason: String, host: inout Host, at now: MonotonicInstant) {
        let peer = slots[i].peer
        events.append(.transmitter(slots[i].device, peer: peer, .pairingFailed(reason: reason)))
        switch slots[i].state {
        case .running where slots[i].driverAwaitsEncryption:
            slots[i].driverAwaitsEncryption = false
            let actions = slots[i].driver.receive(.pairingFailed(reason: reason), at: now)
            perform(actions, slot: i, handle: handle, host: &host, at: now)
        case .securing:
            close(i, handle: handle, reason: "could not secure the link", host: &host, at: now)
        default:
            break
        }
    }

    mutating func discover(_ i: Int, handle: UInt16, host: inout Host, at now: MonotonicInstant) {
        // Results reach us only after this returns (the runner drains the host), even when the
        // host answers from its bond cache.
        let id = host.gatt(.discoverDatabase, on: handle, at: now)
        slots[i].state = .discovering(handle: handle, request: id)
    }

    mutating func databaseDiscovered(_ i: Int, handle: UInt16, database: GATT.Database, host: inout Host, at now: MonotonicInstant) {
        slots[i].database = database
        var services: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]
        for entry in database.entries where services[entry.service.uuid] == nil {
            services[entry.service.uuid] = entry.characteristics.map {
                DiscoveredCharacteristic($0.uuid, properties: CharacteristicProperties(rawValue: $0.properties.rawValue))
            }
        }
        let discovered = DiscoveredServices(services)
        let device = slots[i].device
        if let missing = slots[i].driver.profile.missingRequirement(in: discovered) {
            slots[i].progress.reach(.refused)
            events.append(.transmitter(device, peer: slots[i].peer, .incompatible(reason: missing)))
            close(i, handle: handle, reason: "incompatible", host: &host, at: now)
            return
        }
        if let peer = slots[i].peer, (try? remembered.rememberIfNew(peer, for: device)) == true {
            slots[i].matcher.remembered = peer
            events.append(.rememberedAddress(device, peer))
        }
        slots[i].state = .running(handle: handle)
        var actions = slots[i].driver.start(discovered, at: now)
        for (reference, takenAt) in slots[i].pendingCalibrations {
            actions += slots[i].driver.receive(.calibration(reference, takenAt: takenAt), at: now)
        }
        slots[i].pendingCalibrations.removeAll()
        perform(actions, slot: i, handle: handle, host: &host, at: now)
    }
}

extension TransmitterSlot {
    init(device: DeviceID, driver: any TransmitterDriver, matcher: TransmitterMatcher, securityFirst: Bool, fixedAddress: Address?) {
        self.init(device: device, driver: driver, matcher: matcher, securityFirst: securityFirst)
        self.fixedAddress = fixedAddress
    }

    func matches(_ summary: AdvertisementSummary) -> Bool {
        if let fixedAddress { return summary.address.address == fixedAddress }
        return matcher.matches(summary)
    }
}

extension TransmitterSlot.PendingOperation {
    var gattOperation: GATTOperation {
        switch self {
        case .read(let u): .read(u)
        case .write(let u): .write(u)
        case .subscribe(let u): .subscribe(u)
        }
    }
}
