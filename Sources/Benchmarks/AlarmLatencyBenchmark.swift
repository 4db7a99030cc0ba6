import Alarms
import App
import Bluetooth
import Clocks
import Host
import Platform
import Readings
import Simulator
import Transmitters

/// `vigil-bench alarm-latency`: from the HCI bytes of a Dexcom glucose
/// indication that crosses the urgent-low threshold to the buzzer line write, in process with
/// the test backend; target p99 < 1 ms.
///
/// The whole appliance runs on a virtual clock: `Host`, a `SimulatedController` carrying a
/// `SimulatedDexcom` (authentication, bonding, a session every 5 minutes), and the `Supervisor`
/// `vigil run` drives (the `Appliance` with the Dexcom driver, `ApplianceAlarms`, `ApplianceFace`),
/// its `.face` actions performed on a `MemoryFaceBackend` as the runner performs them. The simulated
/// transmitter's sine never goes below 70 mg/dL, so the rig rewrites the glucose field of each
/// GlucoseRx indication on its way from the controller to the host (re-encoded with its CRC,
/// same length): two sessions at 120 mg/dL, then one at 50. The normal readings clear urgent
/// low (hysteresis 5 mg/dL) and keep the robust trend flat, so the buzzer is silent before
/// every crossing once the first session's backfill of simulated history has left the trend
/// window; a crossing that starts anything but silent is not counted, and said.
///
/// The real monotonic clock (`SystemClock`) is read just before the crossing packet is handed
/// to `Host.receive` and when the backend receives the buzzer-on write; everything on the path
/// runs in between: host, ATT, driver, appliance event, alarm engine, face, backend. Packets
/// the host sends meanwhile (the ATT confirmation, the driver's next request) are delivered to
/// the simulated controller after the clock stops: the controller is not ours to measure.
enum AlarmLatencyBenchmark {
    struct Options {
        var crossings = 1_000
    }

    static let target: Duration = .milliseconds(1)
    static let normal: UInt16 = 120
    static let crossing: UInt16 = 50
    /// Sessions per crossing: `normalSessions` at 120 mg/dL, then one at 50.
    static let normalSessions = 2

    /// The memory backend, plus the real time at which it received a buzzer-on write.
    final class TimingBackend: FaceBackend {
        let memory = MemoryFaceBackend()
        var buzzerOnAt: MonotonicInstant?

        func apply(_ output: FaceOutput, at: MonotonicInstant) {
            if buzzerOnAt == nil, case .buzzer(.high, _) = output { buzzerOnAt = SystemClock.monotonicNow() }
            memory.apply(output, at: at)
        }
    }

    struct Rig {
        var host: Host
        var controller: SimulatedController
        var dexcom: SimulatedDexcom
        var supervisor: Supervisor
        let backend = TimingBackend()
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var glucoseSessions = 0
        var latencies: [Duration] = []
        var notSilent = 0
        var missed = 0
        var problems: [String] = []

        var wallNow: WallClockTime { WallClockTime(secondsSinceEpoch: 1_800_000_000) + (now - .zero) }
        var clocks: ClockReadings { ClockReadings(monotonic: now, wall: wallNow) }
        var face: ApplianceFace<ApplianceAlarms> { supervisor.face! }

        /// The glucose field for the next GlucoseRx: normal, normal, …, then a crossing.
        var nextIsCrossing: Bool { glucoseSessions % (normalSessions + 1) == normalSessions }

        mutating func pump() {
            for _ in 0..<100_000 {
                var moved = false
                var sends: [[UInt8]] = []
                dexcom.service(&controller.radio, at: now)
                for packet in controller.takePacketsForHost() {
                    moved = true
                    if let rewritten = rewriteGlucose(packet) {
                        receiveGlucose(rewritten, sends: &sends)
                    } else {
                        host.receive(packet, at: now)
                        drainHost(into: &sends)
                    }
                }
                drainHost(into: &sends)
                for packet in sends {
                    moved = true
                    controller.receive(fromHost: packet, at: now)
                }
                if !moved { return }
            }
            problems.append("the rig never went quiet at \(now)")
        }

        /// The crossing (or reset) packet: timed when it crosses.
        private mutating func receiveGlucose(_ packet: [UInt8], sends: inout [[UInt8]]) {
            let crossing = nextIsCrossing
            glucoseSessions += 1
            guard crossing else {
                host.receive(packet, at: now)
                drainHost(into: &sends)
                return
            }
            endOfTurn()
            backend.memory.removeAll()
            let silent = face.face.pattern.buzzer == .silent && face.face.buzzerLine == .low
            backend.buzzerOnAt = nil
            let start = SystemClock.monotonicNow()
            host.receive(packet, at: now)
            drainHost(into: &sends)
            guard silent else {
                // The first sessions backfill the simulated history, whose trend can already
                // have raised "urgent low soon": a crossing that is no change of sound is not one.
                notSilent += 1
                return
            }
            guard let end = backend.buzzerOnAt else {
                missed += 1
                if problems.count < 10 {
                    problems.append("session \(glucoseSessions) at \(now): no buzzer write; pattern \(face.face.pattern), "
                                    + "alarms \(face.alarms.engine.activeAlarms)")
                }
                return
            }
            latencies.append(end - start)
        }

        /// Host outputs until quiet: events through the appliance into the alarms and the face,
        /// face writes to the backend at once; packets for the controller are kept for later.
        private mutating func drainHost(into sends: inout [[UInt8]]) {
            while true {
                let outputs = host.takeOutputs()
                if outputs.isEmpty { return }
                for output in outputs {
                    switch output {
                    case .send(let packet):
                        sends.append(packet)
                    case .event(let event):
                        if case .log(let level, let message) = event, level >= .warning, problems.count < 10 {
                            problems.append("\(level): \(message)")
                        }
                        supervisor.handle(event, host: &host, at: clocks)
                        if case .controllerReady = event { supervisor.controllerReady(host: &host, at: clocks) }
                        perform()
                    }
                }
            }
        }

        /// The supervisor's actions as the runner performs them: face writes to the backend at
        /// once; what would go to files, SQLite or systemd has nothing to do here.
        mutating func perform() {
            for action in supervisor.takeActions() {
                switch action {
                case let .face(output, at): backend.apply(output, at: at)
                case let .log(level, message) where level >= .warning && problems.count < 10: problems.append("\(level): \(message)")
                default: break
                }
            }
        }

        /// The runner's end of a turn.
        mutating func endOfTurn() {
            supervisor.endOfTurn(at: clocks)
            perform()
        }

        /// A GlucoseRx indication or notification from the controller with its glucose replaced,
        /// or nil for any other packet. H4 ACL: indicator, handle (2), length (2), L2CAP length
        /// (2), CID 0x0004 (2), ATT opcode 0x1D/0x1B, attribute handle (2), value.
        private func rewriteGlucose(_ packet: [UInt8]) -> [UInt8]? {
            guard packet.count > 12, packet[0] == 0x02, packet[7] == 0x04, packet[8] == 0x00,
                  packet[9] == 0x1D || packet[9] == 0x1B,
                  packet[12] == Dexcom.GlucoseRx.opcodeG5 || packet[12] == Dexcom.GlucoseRx.opcodeG6,
                  var message = try? Dexcom.GlucoseRx(decoding: Array(packet[12...]))
            else { return nil }
            message.glucoseField = nextIsCrossing ? crossing : normal
            let value = message.bytes
            guard value.count == packet.count - 12 else { return nil }
            return Array(packet[..<12]) + value
        }

        mutating func step() -> Bool {
            let controllerDeadline = controller.nextDeadline
            guard let next = earliest(host.nextDeadline, supervisor.nextDeadline, controllerDeadline, dexcom.nextDeadline) else { return false }
            if next > now { now = next }
            if let d = controllerDeadline, d <= now { controller.handleDeadline(at: now) }
            pump()
            if let d = host.nextDeadline, d <= now { host.handleDeadline(at: now) }
            // The face (LED rhythm, escalation, signal loss) catches up here, outside the timing.
            if let d = supervisor.nextDeadline, d <= now {
                supervisor.handleDeadline(host: &host, at: clocks)
                perform()
            }
            pump()
            endOfTurn()
            backend.memory.removeAll()
            return true
        }
    }

    static func makeRig() throws -> Rig {
        let id = try Dexcom.TransmitterID("811234")
        var dexcom = SimulatedDexcom(id: id)
        let radio = SimulatedRadio(peripherals: [dexcom.makePeripheral()])
        var controller = SimulatedController(radio: radio)
        dexcom.service(&controller.radio, at: .zero)
        let driver = try TransmitterRegistry.builtIn.makeDriver(
            TransmitterConfiguration(typeName: "dexcom", device: "g6", options: ["transmitter-id": "811234"]))
        let appliance = Appliance(devices: [Appliance.Device(driver: driver)], remembered: RememberedTransmitters())
        var configuration = Host.Configuration(staticAddress: Address(value: 0xC2_D3_E4_F5_06_17))
        configuration.connectTimeout = .seconds(5)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        let alarms = ApplianceAlarms(configuration: AlarmConfiguration(watchedDevices: ["g6"]), at: start)
        let supervisor = Supervisor(appliance: appliance, face: ApplianceFace(alarms: alarms, drive: .active, at: start),
                                    configuration: Supervisor.Configuration())
        var rig = Rig(host: Host(configuration: configuration), controller: controller, dexcom: dexcom, supervisor: supervisor)
        rig.now = start
        rig.supervisor.start(at: rig.clocks)
        rig.perform()
        return rig
    }

    static func run(_ options: Options) -> [Figure] {
        print("== alarm-latency: Dexcom glucose indication below 55 mg/dL -> buzzer-on write, in process "
              + "(host, simulated controller and Dexcom, appliance, alarms, face, memory backend), \(Format.grouped(options.crossings)) crossings")
        let name = "alarm-latency: p99 HCI glucose -> buzzer on"
        var rig: Rig
        do { rig = try makeRig() } catch {
            return [Figure.checked(name, "cannot build the appliance: \(error)", target: "< 1 ms", passes: false)]
        }
        let wallStart = SystemClock.monotonicNow()
        let virtualStart = rig.now
        rig.host.start(at: rig.now)
        rig.pump()
        while rig.latencies.count < options.crossings {
            guard rig.step() else {
                return [Figure.checked(name, "stalled after \(rig.latencies.count) crossings", target: "< 1 ms", passes: false)]
            }
            // A session every 5 virtual minutes: ten times the expected virtual time means the
            // link or the alarm path is broken; say so rather than spin.
            let expected = Duration.seconds(330 * (normalSessions + 1)) * (options.crossings + 2)
            if rig.now - virtualStart > expected * 10 || rig.missed > 10 {
                return [Figure.checked(name, "only \(rig.latencies.count) crossings in \(Format.seconds(rig.now - virtualStart)) virtual, "
                                       + "\(rig.missed) without a buzzer write; host said: \(rig.problems)", target: "< 1 ms", passes: false)]
            }
        }
        let wall = SystemClock.monotonicNow() - wallStart
        let sorted = rig.latencies.sorted()
        func percentile(_ p: Double) -> Duration { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        func micro(_ d: Duration) -> String { Format.fixed(Double(d.nanosecondsClamped) / 1000, places: 1) + " µs" }
        let p50 = percentile(0.50), p99 = percentile(0.99), worst = sorted[sorted.count - 1]
        print("  \(Format.grouped(sorted.count)) crossings over \(Format.grouped(rig.glucoseSessions)) Dexcom sessions in "
              + "\(Format.seconds(wall)) wall, \(Format.seconds(rig.now - virtualStart)) virtual; "
              + "not counted: \(rig.notSilent) not silent before, \(rig.missed) without a buzzer write")
        if !rig.problems.isEmpty { print("  host warnings: \(rig.problems.joined(separator: "; "))") }
        let figures = [
            Figure.info("alarm-latency: p50", micro(p50)),
            Figure.checked(name, micro(p99), target: "< 1 ms", passes: p99 < target),
            Figure.info("alarm-latency: max", micro(worst)),
        ]
        figures.forEach { print($0.line) }
        return figures
    }
}
