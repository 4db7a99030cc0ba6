import Bluetooth
import Clocks
import HCI
import SMP
import Simulator
import Testing
@testable import Host

/// Randomness that replays: SplitMix64 over a seed, so the host's pairing values (and so every
/// byte it sends) are the same on every run.
struct DeterministicRandom: SMP.RandomSource {
    var state: UInt64

    init(seed: UInt64 = 0x7E57_5EED) { state = seed }

    mutating func bytes(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(n)
        while out.count < n {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for i in 0..<8 where out.count < n { out.append(UInt8(truncatingIfNeeded: z >> (8 * UInt64(i)))) }
        }
        return out
    }
}

/// The real `Host` and a `SimulatedController` wired back to back on one virtual clock.
///
/// Host `.send` outputs go to the controller, the controller's packets go to the host, and the
/// host's events are collected with the instant they happened. Time moves only by jumping to
/// the earliest `nextDeadline` of either side; nothing sleeps. Every jump is counted, and a
/// run that needs more than `maximumSteps` jumps is reported as a hang instead of spinning.
struct SimulatedWorld {
    /// One H4 packet the host sent, with when.
    struct Sent {
        var time: MonotonicInstant
        var h4: [UInt8]
    }

    /// One L2CAP frame the host sent, reassembled from its ACL fragments.
    struct SentFrame: Equatable {
        var time: MonotonicInstant
        var handle: UInt16
        var channel: UInt16
        var payload: [UInt8]
    }

    var host: Host
    var controller: SimulatedController
    private(set) var now: MonotonicInstant = .zero
    private(set) var timedEvents: [(time: MonotonicInstant, event: Host.Event)] = []
    private(set) var sent: [Sent] = []
    private(set) var sentFrames: [SentFrame] = []
    private var outgoingReassembly: [UInt16: [UInt8]] = [:]
    /// Rounds of exchange within one instant before we call it a livelock.
    static let maximumRoundsPerInstant = 100_000
    static let maximumSteps = 1_000_000
    private(set) var hung = false

    /// The host's static address as tests configure it (the host sets the two top bits).
    static let hostAddress = Address(value: 0x00_12_34_56_78_9A)

    init(
        controller configuration: SimulatedController.Configuration = .init(),
        peripherals: [SimulatedPeripheral] = [],
        bonds: SMP.BondStore = SMP.BondStore(),
        configure: (inout Host.Configuration) -> Void = { _ in }
    ) {
        var hostConfiguration = Host.Configuration(staticAddress: Self.hostAddress)
        configure(&hostConfiguration)
        host = Host(configuration: hostConfiguration, bonds: bonds, random: DeterministicRandom())
        controller = SimulatedController(configuration: configuration, radio: SimulatedRadio(peripherals: peripherals))
    }

    // MARK: moving data and time

    var events: [Host.Event] { timedEvents.map(\.event) }

    /// Starts bring-up and runs until the host says ready or failed (bounded by the command timeout).
    mutating func start() {
        host.start(at: now)
        pump()
        run(until: { $0.host.isReady || $0.controllerFailed != nil }, within: .seconds(60))
    }

    /// One round: the host's pending outputs to the controller, then the controller's packets
    /// to the host. Returns whether anything moved.
    @discardableResult
    mutating func exchange() -> Bool {
        var moved = false
        for output in host.takeOutputs() {
            moved = true
            switch output {
            case .send(let packet):
                sent.append(Sent(time: now, h4: packet))
                recordFrame(packet)
                controller.receive(fromHost: packet, at: now)
            case .event(let event):
                timedEvents.append((now, event))
            }
        }
        let packets = controller.takePacketsForHost()
        for packet in packets {
            moved = true
            host.receive(packet, at: now)
        }
        return moved
    }

    /// Exchanges until both sides are quiet at this instant.
    mutating func pump() {
        var rounds = 0
        while exchange() {
            rounds += 1
            if rounds > Self.maximumRoundsPerInstant { hung = true; return }
        }
    }

    /// The earliest deadline of host or controller.
    var nextDeadline: MonotonicInstant? { earliest(host.nextDeadline, controller.nextDeadline) }

    /// Jumps to the next deadline (not beyond `limit`) and handles it on both sides.
    /// Returns false when nothing is due by `limit`.
    @discardableResult
    mutating func step(notAfter limit: MonotonicInstant) -> Bool {
        pump()
        guard let next = nextDeadline, next <= limit else { return false }
        now = max(now, next)
        controller.handleDeadline(at: now)
        host.handleDeadline(at: now)
        pump()
        return true
    }

    /// Runs every deadline up to and including `target`, then leaves the clock at `target`.
    mutating func run(to target: MonotonicInstant) {
        var steps = 0
        while step(notAfter: target) {
            steps += 1
            if steps > Self.maximumSteps || hung { hung = true; return }
        }
        if target > now {
            now = target
            controller.handleDeadline(at: now)
            host.handleDeadline(at: now)
            pump()
        }
    }

    mutating func advance(by duration: Duration) { run(to: now + duration) }

    /// Runs until `condition` holds or `limit` of virtual time passes. Returns whether it held.
    @discardableResult
    mutating func run(until condition: (SimulatedWorld) -> Bool, within limit: Duration) -> Bool {
        let end = now + limit
        pump()
        var steps = 0
        while !condition(self) {
            guard step(notAfter: end) else {
                run(to: end)
                return condition(self)
            }
            steps += 1
            if steps > Self.maximumSteps || hung { hung = true; return false }
        }
        return true
    }

    // MARK: owner commands, pumped

    mutating func startScanning(active: Bool) { host.startScanning(active: active, at: now); pump() }
    mutating func stopScanning() { host.stopScanning(at: now); pump() }
    mutating func secure(_ handle: UInt16) { host.secure(handle: handle, at: now); pump() }
    mutating func disconnect(_ handle: UInt16) { host.disconnect(handle: handle, at: now); pump() }

    /// Starts a GATT operation and pumps; the result is picked up with `result(of:)`.
    @discardableResult
    mutating func gatt(_ operation: GATTClient.Operation, on handle: UInt16) -> GATTClient.RequestID {
        let id = host.gatt(operation, on: handle, at: now)
        pump()
        return id
    }

    /// Runs a GATT operation to its result (at most 60 s of virtual time).
    mutating func perform(_ operation: GATTClient.Operation, on handle: UInt16) -> GATTClient.Result? {
        let id = gatt(operation, on: handle)
        run(until: { $0.result(of: id) != nil }, within: .seconds(60))
        return result(of: id)
    }

    /// Connects and waits for `.connected` and the MTU exchange; returns the handle.
    mutating func connect(_ peer: DeviceAddress) -> UInt16? {
        host.connect(peer, at: now)
        pump()
        run(until: { world in
            guard let handle = world.connectedHandle(peer) else { return world.connectionFailure(peer) != nil }
            return world.events.contains(.mtuExchanged(handle: handle, mtu: world.host.mtu(of: handle) ?? 0))
        }, within: .seconds(30))
        return host.handle(for: peer)
    }

    /// A started world with the peripherals, connected to the first: the usual test opening.
    static func connected(
        to peripherals: [SimulatedPeripheral], controller: SimulatedController.Configuration = .init(),
        bonds: SMP.BondStore = SMP.BondStore()
    ) -> (world: SimulatedWorld, handle: UInt16) {
        var world = SimulatedWorld(controller: controller, peripherals: peripherals, bonds: bonds)
        world.start()
        let handle = world.connect(peripherals[0].address) ?? 0xFFFF
        return (world, handle)
    }

    // MARK: reading what happened

    var logs: [(level: Host.LogLevel, message: String)] {
        events.compactMap { if case let .log(level, message) = $0 { (level, message) } else { nil } }
    }

    func logged(_ fragment: String, atLeast level: Host.LogLevel = .debug) -> Bool {
        logs.contains { $0.level >= level && $0.message.contains(fragment) }
    }

    var controllerFailed: String? {
        for case .controllerFailed(let reason) in events { return reason }
        return nil
    }

    var controllerReady: Host.ControllerInfo? {
        for case .controllerReady(let info) in events { return info }
        return nil
    }

    func connectedHandle(_ peer: DeviceAddress) -> UInt16? {
        for case let .connected(handle, p) in events where p == peer { return handle }
        return nil
    }

    func connectionFailure(_ peer: DeviceAddress) -> String? {
        for case let .connectionFailed(p, reason) in events where p == peer { return reason }
        return nil
    }

    func result(of id: GATTClient.RequestID) -> GATTClient.Result? {
        for case let .gatt(_, request, result) in events where request == id { return result }
        return nil
    }

    /// How many results a request got (must never be more than one).
    func resultCount(of id: GATTClient.RequestID) -> Int {
        events.filter { if case let .gatt(_, request, _) = $0 { request == id } else { false } }.count
    }

    func disconnection(_ handle: UInt16) -> HCI.Status? {
        for case let .disconnected(h, _, reason) in events where h == handle { return reason }
        return nil
    }

    func notifications(on handle: UInt16) -> [(time: MonotonicInstant, attribute: UInt16, value: [UInt8])] {
        timedEvents.compactMap { entry in
            if case let .notification(h, attribute, value) = entry.event, h == handle { (entry.time, attribute, value) } else { nil }
        }
    }

    func time(of event: Host.Event) -> MonotonicInstant? { timedEvents.first { $0.event == event }?.time }

    /// Opcodes of the HCI commands the host sent, in order.
    var sentCommands: [HCI.CommandPacket] {
        sent.compactMap { packet in
            guard packet.h4.first == HCI.PacketType.command.rawValue else { return nil }
            return try? HCI.CommandPacket(bytes: Array(packet.h4.dropFirst()))
        }
    }

    func sentCommands<C: HCICommand>(_ type: C.Type) -> [C] {
        sentCommands.compactMap { packet -> C? in (try? packet.decode(as: type)) ?? nil }
    }

    /// SMP PDUs the host sent on a connection.
    func sentSMP(on handle: UInt16) -> [[UInt8]] {
        sentFrames.filter { $0.handle == handle && $0.channel == L2CAP.ChannelID.securityManager }.map(\.payload)
    }

    func peripheral(_ address: DeviceAddress) -> SimulatedPeripheral? { controller.radio[address.address] }

    /// What a test asserts at the end of every scenario: no spec violations toward the
    /// controller, and no livelock or runaway loop.
    func expectHealthy(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(controller.violations.isEmpty, "controller saw violations: \(controller.violations)", sourceLocation: sourceLocation)
        #expect(!hung, "the world hit its step limit: a livelock", sourceLocation: sourceLocation)
    }

    // MARK: private

    /// Reassembles host → controller ACL fragments into L2CAP frames, independently of the
    /// host's own code, so tests can see what went on each channel.
    private mutating func recordFrame(_ h4: [UInt8]) {
        guard h4.first == HCI.PacketType.aclData.rawValue, h4.count >= 5 else { return }
        let handle = (UInt16(h4[1]) | UInt16(h4[2]) << 8) & 0x0FFF
        let boundary = (h4[2] >> 4) & 0x3
        let data = Array(h4[5...])
        var buffer = boundary == 0b01 ? (outgoingReassembly[handle] ?? []) + data : data
        if buffer.count >= 4 {
            let length = Int(buffer[0]) | Int(buffer[1]) << 8
            if buffer.count >= 4 + length {
                let channel = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
                sentFrames.append(SentFrame(time: now, handle: handle, channel: channel, payload: Array(buffer[4..<(4 + length)])))
                buffer = []
            }
        }
        outgoingReassembly[handle] = buffer
    }
}

/// The simulated heart-rate monitor's attribute table, as `SimulatedDevices.heartRateMonitor`
/// lays it out from handle 1 (docs/protocols/sig-heart-rate.md and sig-common.md; derived by
/// hand from the service list, not read back from the simulator).
enum HRM {
    static let address = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random)
    static let heartRateService: UInt16 = 0x0001
    static let heartRateMeasurement: UInt16 = 0x0003
    static let heartRateCCCD: UInt16 = 0x0004
    static let bodySensorLocation: UInt16 = 0x0006
    static let controlPoint: UInt16 = 0x0008
    static let batteryLevel: UInt16 = 0x000B
    static let batteryCCCD: UInt16 = 0x000C
    static let manufacturerName: UInt16 = 0x000F
    static let modelNumber: UInt16 = 0x0011
    static let serialNumber: UInt16 = 0x0013
    static let firmwareRevision: UInt16 = 0x0015

    static func address(_ n: UInt64) -> DeviceAddress { DeviceAddress(Address(value: 0xC0_11_22_33_44_00 | n), type: .random) }
}
