import Bluetooth
import Clocks
import HCI
import SMP
import Wire

/// Vigil's Bluetooth LE host: a sans-IO state machine from HCI packets to GATT values.
///
/// It is fed `(input, now)` — H4 packets from the controller, commands from its owner, and
/// deadlines — and produces outputs: H4 packets to send and events to report. It never reads
/// a clock, never blocks, and reports `nextDeadline` so the owner's poll loop can sleep exactly
/// until something is due. Layers follow the Core spec: controller bring-up and HCI flow
/// control, scanning, connections, L2CAP, ATT/GATT client, and the Security Manager.
public struct Host: Sendable {
    public struct Configuration: Sendable {
        /// Our random static address (Vol 6 Part B §1.3.2.1). Keep it stable across restarts:
        /// peers store bonds under it.
        public var staticAddress: Address
        public var commandTimeout: Duration = .seconds(3)
        public var connectTimeout: Duration = .seconds(15)
        /// How long to wait for the LE Connection Complete that follows a cancel. Bumble never
        /// sends it, so this bounds the wait.
        public var cancelTimeout: Duration = .seconds(2)
        /// How long past a deadline the host waits for the owner to feed input still waiting
        /// to be read (`handleDeadline(at:inputWaiting:)`): the answer a timeout gives up on
        /// may be in it. Bounded, so a link that never stops talking cannot hold a timeout back
        /// for ever.
        public var backlogAllowance: Duration = .seconds(30)
        public var preferredMTU: UInt16 = 247
        public var connectionParameters = HCI.ConnectionParameters()
        public var scanInterval: UInt16 = 0x0060
        public var scanWindow: UInt16 = 0x0030
        public var security = SMP.Configuration()
        /// The capture plays the controller's part (a btsnoop replay): the controller is ready
        /// at once, the owner's commands are never sent and count as answered with success,
        /// and answers in the capture to commands this host never sent are ignored. A capture
        /// taken while the adapter was already up holds no bring-up answers, and one that holds
        /// them answered another host's commands in another order: waiting for either would
        /// fail the controller instead of decoding what the capture holds (`Host+Replay`).
        public var replay = false

        public init(staticAddress: Address) {
            self.staticAddress = Address(value: staticAddress.value | 0xC000_0000_0000)
        }
    }

    enum ControllerState: Sendable, Equatable {
        case off
        case bringingUp(BringUpStep)
        case ready
        case failed(String)
    }

    enum ConnectorState: Sendable, Equatable {
        case idle
        case creating(DeviceAddress, deadline: MonotonicInstant)
        case cancelling(DeviceAddress, deadline: MonotonicInstant)
    }

    public let configuration: Configuration
    var controller: ControllerState = .off
    var info = ControllerInfo(publicAddress: Address(value: 0), staticAddress: Address(value: 0), hciVersion: 0, manufacturer: 0, leFeatures: 0, aclPacketLength: 27, aclPackets: 1)
    var commands: CommandQueue
    var acl = ACLScheduler()
    var scanner = Scanner()
    var connector: ConnectorState = .idle
    var connectQueue: [DeviceAddress] = []
    var connections: [UInt16: Connection] = [:]
    public var bonds: SMP.BondStore
    /// Discovered databases of bonded peers (Vol 3 Part G §2.5.2: a bonded client may cache).
    var databaseCache: [DeviceAddress: GATT.Database] = [:]
    var random: any SMP.RandomSource
    var outputs: [Output] = []
    /// Wall-clock time, set by the owner before each input; only used to date new bonds.
    public var wallClock = WallClockTime(microsecondsSinceEpoch: 0)
    var nextRequestID: GATTClient.RequestID = 1

    public init(configuration: Configuration, bonds: SMP.BondStore = SMP.BondStore(), random: any SMP.RandomSource = SMP.SystemRandom()) {
        self.configuration = configuration
        self.commands = CommandQueue(timeout: configuration.commandTimeout)
        self.bonds = bonds
        self.random = random
    }

    // MARK: state for the owner

    public var isReady: Bool { controller == .ready }
    public var controllerInfo: ControllerInfo? { isReady ? info : nil }
    public var connectedPeers: [UInt16: DeviceAddress] { connections.mapValues(\.peer) }
    public func handle(for peer: DeviceAddress) -> UInt16? { connections.first { $0.value.peer == peer }?.key }
    public func mtu(of handle: UInt16) -> Int? { connections[handle]?.gatt.mtu }
    public func isEncrypted(_ handle: UInt16) -> Bool { connections[handle]?.encryption == .on }
    public func database(of handle: UInt16) -> GATT.Database? { connections[handle]?.database }
    public func lastSeen(_ peer: DeviceAddress) -> MonotonicInstant? { scanner.lastSeen(peer) }
    public var isScanning: Bool { if case .scanning = scanner.state { true } else { false } }
    public var isConnecting: Bool { connector != .idle || !connectQueue.isEmpty }

    public var nextDeadline: MonotonicInstant? {
        var candidates: [MonotonicInstant?] = [commands.nextDeadline]
        switch connector {
        case .idle: break
        case .creating(_, let d), .cancelling(_, let d): candidates.append(d)
        }
        for connection in connections.values { candidates.append(connection.nextDeadline) }
        return earliest(candidates)
    }

    /// Outputs produced since the last call, in order.
    public mutating func takeOutputs() -> [Output] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    // MARK: inputs from the owner

    /// (Re)starts bring-up from HCI Reset. Connections from a previous life are reported gone.
    public mutating func start(at now: MonotonicInstant) {
        for handle in connections.keys.sorted() {
            dropConnection(handle, reason: .localHostTerminated, note: "controller restarted")
        }
        commands.reset()
        acl = ACLScheduler()
        scanner.state = .stopped
        // A new controller life: every advertiser is news again. Otherwise a peer matched by
        // name whose connection attempt died with the old controller is never reported again
        // (its advertisement is unchanged), and the owner never tries it again.
        scanner.forgetAll()
        connector = .idle
        if configuration.replay { return startReplay(at: now) }
        controller = .bringingUp(.reset)
        log(.info, "controller bring-up: HCI Reset")
        commands.enqueue(HCI.Reset(), purpose: .bringUp(.reset))
        flush(at: now)
    }

    /// The transport to the controller is gone (end of stream, ENODEV). Connections are reported
    /// lost and pending work fails; nothing is sent until `start(at:)` after a reopen.
    public mutating func controllerLost(_ reason: String, at now: MonotonicInstant) {
        for handle in connections.keys.sorted() {
            dropConnection(handle, reason: .hardwareFailure, note: "controller lost: \(reason)")
        }
        if case .creating(let peer, _) = connector { emit(.connectionFailed(peer: peer, reason: "controller lost")) }
        if case .cancelling(let peer, _) = connector { emit(.connectionFailed(peer: peer, reason: "controller lost")) }
        commands.reset()
        acl = ACLScheduler()
        scanner.state = .stopped
        connector = .idle
        controller = .off
    }

    public mutating func startScanning(active: Bool, at now: MonotonicInstant) {
        scanner.wanted = active
        reconcileScanning()
        flush(at: now)
    }

    /// Report every advertisement from these peers, not only new or changed data (see `Scanner`).
    public mutating func watch(_ peers: Set<DeviceAddress>) {
        scanner.watched = peers
    }

    public mutating func stopScanning(at now: MonotonicInstant) {
        scanner.wanted = nil
        reconcileScanning()
        flush(at: now)
    }

    /// Connects to a peer; the answer is a `.connected` or `.connectionFailed` event. One LE
    /// Create Connection may be pending at a time (Vol 4 Part E §7.8.12), so requests queue.
    public mutating func connect(_ peer: DeviceAddress, at now: MonotonicInstant) {
        guard handle(for: peer) == nil, !connectQueue.contains(peer) else { return }
        switch connector {
        case .creating(let p, _), .cancelling(let p, _): if p == peer { return }
        case .idle: break
        }
        connectQueue.append(peer)
        advanceConnector(at: now)
        flush(at: now)
    }

    public mutating func cancelConnect(_ peer: DeviceAddress, at now: MonotonicInstant) {
        connectQueue.removeAll { $0 == peer }
        if case .creating(let p, _) = connector, p == peer {
            connector = .cancelling(p, deadline: now + configuration.cancelTimeout)
            commands.enqueue(HCI.LECreateConnectionCancel(), purpose: .cancelConnection)
        }
        flush(at: now)
    }

    public mutating func disconnect(handle: UInt16, at now: MonotonicInstant) {
        guard var connection = connections[handle], !connection.disconnecting else { return }
        connection.disconnecting = true
        connections[handle] = connection
        commands.enqueue(HCI.Disconnect(handle: handle, reason: .remoteUserTerminated), purpose: .disconnect(handle: handle))
        flush(at: now)
    }

    /// Starts a GATT procedure; its result arrives as a `.gatt` event with the returned ID.
    @discardableResult
    public mutating func gatt(_ operation: GATTClient.Operation, on handle: UInt16, at now: MonotonicInstant) -> GATTClient.RequestID {
        let id = nextRequestID
        nextRequestID += 1
        guard var connection = connections[handle] else {
            emit(.gatt(handle: handle, request: id, result: .failed(.disconnected)))
            return id
        }
        if operation == .discoverDatabase, let cached = databaseCache[connection.peer], bonds.bond(for: connection.peer) != nil {
            connection.database = cached
            connections[handle] = connection
            log(.debug, "\(connection.peer): GATT database from the bond cache")
            emit(.gatt(handle: handle, request: id, result: .database(cached)))
            return id
        }
        let out = connection.gatt.enqueue(operation, id: id, at: now)
        connections[handle] = connection
        handleGATTOutputs(out, on: handle, at: now)
        flush(at: now)
        return id
    }

    public mutating func forgetBond(_ peer: DeviceAddress) {
        // Bonds are filed under the identity address when the peer distributed one, which is
        // not the address the owner sees on the air.
        if let bond = bonds.bond(for: peer) { bonds.remove(bond.identity) }
        bonds.remove(peer)
        databaseCache.removeValue(forKey: peer)
    }

    // MARK: helpers shared by the extensions

    mutating func emit(_ event: Event) {
        // A peer whose attempt failed is news again when next heard: its advertisement has not
        // changed, and an owner that matches it by name (not yet by a remembered address, which
        // is watched) would otherwise never hear of it again, nor try it again.
        if case .connectionFailed(let peer, _) = event { scanner.forget(peer) }
        outputs.append(.event(event))
    }

    mutating func log(_ level: LogLevel, _ message: String) { outputs.append(.event(.log(level, message))) }

    /// Sends whatever flow control now allows.
    mutating func flush(at now: MonotonicInstant) {
        if configuration.replay {
            answerCommandsOnReplay(at: now)
        } else {
            for packet in commands.flush(at: now) { outputs.append(.send(packet)) }
        }
        for packet in acl.pump() { outputs.append(.send(packet)) }
    }

    mutating func sendL2CAP(_ payload: [UInt8], channel: UInt16, on handle: UInt16) {
        // Once we have sent HCI_Disconnect the controller may close the link at any moment;
        // data queued after that would reach it for a handle it no longer knows.
        guard connections[handle]?.disconnecting != true else { return }
        if !acl.enqueue(L2CAP.BasicFrame(channel: channel, payload: payload), on: handle) {
            log(.warning, "connection 0x\(String(handle, radix: 16)): outgoing queue full, frame on CID \(channel) dropped")
        }
    }
}
