import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

/// The appliance's Bluetooth side: one slot per configured transmitter, each finding its
/// transmitter, connecting, securing, discovering, running its driver and reconnecting when
/// the link drops — forever (`TransmitterSlot`, `BroadcastSlot`).
///
/// Sans-IO like everything in the core: host events and deadlines in, host calls and
/// `ApplianceEvent`s out. It routes each host event to the slot it concerns (by connection
/// handle, by peer, by advertisement), carries out what the slots answer, and owns what is
/// shared: the scanner, the remembered peers, and calibrations passed from one slot to others.
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
                slots.append(TransmitterSlot(driver: driver, matcher: matcher,
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
        slots.map { ($0.device, $0.state.inWords) }
            + broadcasters.map { ($0.device, $0.remembered.map { "listening to \($0)" } ?? "listening") }
    }

    // MARK: inputs

    public mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        controllerUp = true
        events.append(.bluetooth(.poweredOn))
        for i in slots.indices { route(.controllerReady, to: i, host: &host, at: now) }
        for i in broadcasters.indices { broadcasters[i].decoder.start(at: now) }
        updateScanning(host: &host, at: now)
    }

    public mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        for i in slots.indices { route(.deadline, to: i, host: &host, at: now) }
        for i in broadcasters.indices { events += broadcasters[i].deadlinePassed(at: now) }
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
            guard let i = slots.firstIndex(where: { $0.state == .connecting(to: peer) }) else {
                // Not ours (a stale attempt): let it go.
                host.disconnect(handle: handle, at: now)
                return
            }
            route(.connected(handle: handle, peer: peer), to: i, host: &host, at: now)
        case let .connectionFailed(peer, reason):
            route(.connectionFailed(peer: peer, reason: reason), toFirst: { $0.state == .connecting(to: peer) }, host: &host, at: now)
        case let .disconnected(handle, peer, reason):
            route(.disconnected(peer: peer, reason: "\(reason)"), toLink: handle, host: &host, at: now)
        case let .gatt(handle, id, result):
            route(.gatt(id, result), toLink: handle, host: &host, at: now)
        case let .notification(handle, attribute, value):
            route(.value(attribute: attribute, value, origin: .notification), toFirst: { $0.state == .running(handle: handle) }, host: &host, at: now)
        case let .indication(handle, attribute, value):
            route(.value(attribute: attribute, value, origin: .indication), toFirst: { $0.state == .running(handle: handle) }, host: &host, at: now)
        case let .encryptionChanged(handle, enabled, bonded):
            guard enabled else { return }
            route(.encrypted(bonded: bonded), toLink: handle, host: &host, at: now)
        case let .encryptionFailed(handle, reason, bondRejected):
            route(.encryptionFailed(reason: reason, bondRejected: bondRejected), toLink: handle, host: &host, at: now)
        case let .paired(handle, bond):
            route(.paired(secureConnections: bond.secureConnections), toLink: handle, host: &host, at: now)
        case let .pairingFailed(handle, reason):
            route(.pairingFailed(reason: reason), toLink: handle, host: &host, at: now)
        case .mtuExchanged, .connectionParametersChanged, .log:
            break
        }
    }

    // MARK: routing

    /// Hands `input` to the slot whose link this is.
    mutating func route(_ input: TransmitterSlot.Input, toLink handle: UInt16, host: inout Host, at now: MonotonicInstant) {
        route(input, toFirst: { $0.handle == handle }, host: &host, at: now)
    }

    mutating func route(_ input: TransmitterSlot.Input, toFirst matching: (TransmitterSlot) -> Bool, host: inout Host, at now: MonotonicInstant) {
        guard let i = slots.firstIndex(where: matching) else { return }
        route(input, to: i, host: &host, at: now)
    }

    /// Hands `input` to slot `i` and carries out its effects in order: events, host calls, and
    /// what concerns the appliance as a whole (remembered peers, calibrations for the others).
    mutating func route(_ input: TransmitterSlot.Input, to i: Int, host: inout Host, at now: MonotonicInstant) {
        let encrypted = slots[i].handle.map(host.isEncrypted) ?? false
        for effect in slots[i].receive(input, at: now, linkIsEncrypted: encrypted) {
            switch effect {
            case .event(let event):
                events.append(event)
            case .connect(let peer):
                host.connect(peer, at: now)
            case .disconnect(let handle):
                host.disconnect(handle: handle, at: now)
            case .secure(let handle):
                host.secure(handle: handle, at: now)
            case .pair(let handle):
                host.pair(handle: handle, at: now)
            case .forgetBond(let peer):
                host.forgetBond(peer)
            case let .gatt(operation, handle, request):
                slots[i].sent(request, as: host.gatt(operation, on: handle, at: now))
            case .remember(let peer):
                let device = slots[i].device
                if (try? remembered.rememberIfNew(peer, for: device)) == true {
                    slots[i].remembered(peer)
                    events.append(.rememberedAddress(device, peer))
                }
            case let .calibrateOthers(reference, time):
                // Meter records carry the meter's wall-clock time; drivers take monotonic
                // time, so convert with the host's wall clock.
                let takenAt: MonotonicInstant = switch time {
                case .monotonic(let instant): instant
                case .wallClock(let time): now - (host.wallClock - time)
                }
                for j in slots.indices where j != i {
                    route(.calibration(reference, takenAt: takenAt), to: j, host: &host, at: now)
                }
            }
        }
    }

    // MARK: searching

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
        host.watch(Set(searching.compactMap(\.watchedPeer)))
        let wanted = !searching.isEmpty || !broadcasters.isEmpty
        if wanted && !host.isScanning { host.startScanning(active: activeScan, at: now) }
        if !wanted && host.isScanning { host.stopScanning(at: now) }
    }

    mutating func advertisementSeen(_ a: Advertisement, host: inout Host, at now: MonotonicInstant) {
        let summary = AdvertisementSummary(address: a.address, advertising: a.parsed, scanResponse: a.parsedScanResponse, rssi: a.rssi)
        // Broadcasters first: real ones are not connectable.
        for i in broadcasters.indices where broadcasters[i].matches(summary) {
            let heard = broadcasters[i].heard(summary, at: now)
            if heard.isFirstFromPeer, (try? remembered.rememberIfNew(a.address, for: broadcasters[i].device)) == true {
                events.append(.rememberedAddress(broadcasters[i].device, a.address))
            }
            events += heard.events
        }
        // A peer already claimed by one slot is not offered to another.
        let claimed = Set(slots.compactMap(\.claimedPeer))
        guard a.isConnectable || a.scanResponse != nil, !claimed.contains(a.address) else { return }
        route(.advertisement(from: a.address), toFirst: { $0.isLookingFor(summary) }, host: &host, at: now)
        updateScanning(host: &host, at: now)
    }
}
