import App
import Bluetooth
import Clocks
import Host
import SMP
import Simulator
import Testing
import Transmitters

/// A deterministic source for the host's SMP randomness.
struct CountingRandom: SMP.RandomSource {
    var counter: UInt8 = 1
    mutating func bytes(_ n: Int) -> [UInt8] {
        (0..<n).map { _ in
            counter &+= 37
            return counter
        }
    }
}

/// The appliance, the host and a simulated controller wired together on a virtual clock, the
/// way the `vigil` runner wires them to a real link. Time only moves by jumping to the next
/// deadline: no test sleeps.
struct ApplianceWorld {
    var host: Host
    var controller: SimulatedController
    var appliance: Appliance
    var now = MonotonicInstant(nanoseconds: 1_000_000_000)
    var events: [ApplianceEvent] = []
    var hostEvents: [Host.Event] = []
    /// A simulated Dexcom's transmitter side, serviced after every step like `vigil demo` does.
    var dexcom: SimulatedDexcom?

    static let hrmAddress = DeviceAddress(Address(value: 0xC0_11_22_33_44_55), type: .random)

    init(devices: [Appliance.Device], peripherals: [SimulatedPeripheral],
         remembered: RememberedTransmitters = RememberedTransmitters(), bonds: SMP.BondStore = SMP.BondStore()) {
        var configuration = Host.Configuration(staticAddress: Address(value: 0xC1_02_03_04_05_06))
        configuration.connectTimeout = .seconds(5)
        host = Host(configuration: configuration, bonds: bonds, random: CountingRandom())
        controller = SimulatedController(radio: SimulatedRadio(peripherals: peripherals))
        appliance = Appliance(devices: devices, remembered: remembered)
    }

    /// A world with one simulated G6 (ID 811234), configured as device "g6". `cycle` is how
    /// long the transmitter sleeps after a session: 5 minutes for a real one.
    static func withDexcom(cycle: Duration = .seconds(300)) throws -> ApplianceWorld {
        var sim = SimulatedDexcom(id: try Dexcom.TransmitterID("811234"), cycle: cycle)
        let driver = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "dexcom", device: "g6", options: ["transmitter-id": "811234"]))
        var world = ApplianceWorld(devices: [Appliance.Device(driver: driver)], peripherals: [sim.makePeripheral()])
        sim.service(&world.controller.radio, at: world.now)
        world.dexcom = sim
        return world
    }

    static func heartRate(pair: Bool = false) throws -> Appliance.Device {
        let driver = try TransmitterRegistry.builtIn.makeDriver(TransmitterConfiguration(typeName: "heart-rate", device: "strap"))
        return Appliance.Device(driver: driver, pair: pair)
    }

    /// Commands (by opcode) the world answers itself with Command Disallowed instead of passing
    /// them to the controller, each as many times as its count says: a controller that will not.
    var refuse: [UInt16: Int] = [:]
    private var refusals: [[UInt8]] = []

    private mutating func refusing(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 3, packet[0] == 0x01 else { return false }
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        guard let left = refuse[opcode], left > 0 else { return false }
        refuse[opcode] = left - 1
        return true
    }

    mutating func start() {
        host.start(at: now)
        pump()
    }

    /// Moves packets and events until everything is quiet at the current time.
    mutating func pump() {
        for _ in 0..<10_000 {
            var moved = false
            for output in host.takeOutputs() {
                moved = true
                switch output {
                case .send(let packet) where refusing(packet):
                    // Command Status (Vol 4 Part E §7.7.15): Command Disallowed, one credit back.
                    refusals.append([0x04, 0x0F, 0x04, 0x0C, 0x01, packet[1], packet[2]])
                case .send(let packet):
                    controller.receive(fromHost: packet, at: now)
                case .event(let event):
                    hostEvents.append(event)
                    appliance.handle(event, host: &host, at: now)
                    if case .controllerReady = event { appliance.controllerReady(host: &host, at: now) }
                }
            }
            dexcom?.service(&controller.radio, at: now)
            for packet in refusals + controller.takePacketsForHost() {
                moved = true
                host.receive(packet, at: now)
            }
            refusals.removeAll()
            events += appliance.takeEvents()
            if !moved { return }
        }
        Issue.record("the world never went quiet at \(now)")
    }

    /// Runs for `duration` of virtual time, jumping from deadline to deadline.
    mutating func advance(by duration: Duration) {
        let end = now + duration
        for _ in 0..<1_000_000 {
            guard let next = earliest(host.nextDeadline, controller.nextDeadline, appliance.nextDeadline, dexcom?.nextDeadline), next <= end else { break }
            now = max(now, next)
            host.handleDeadline(at: now)
            controller.handleDeadline(at: now)
            appliance.handleDeadline(host: &host, at: now)
            pump()
        }
        now = end
        pump()
    }

    /// Advances until `condition` holds or `limit` passes; returns whether it held.
    @discardableResult
    mutating func advance(until limit: Duration, _ condition: (ApplianceWorld) -> Bool) -> Bool {
        let end = now + limit
        while now < end {
            if condition(self) { return true }
            advance(by: .milliseconds(100))
        }
        return condition(self)
    }

    var readings: [[Reading]] {
        events.compactMap { if case .readings(_, _, let r) = $0 { r } else { nil } }
    }

    func transmitterEvents(_ match: (TransmitterEvent) -> Bool) -> Int {
        events.filter { if case .transmitter(_, _, let e) = $0 { match(e) } else { false } }.count
    }
}

import Readings
