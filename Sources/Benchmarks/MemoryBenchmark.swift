#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import App
import Bluetooth
import Clocks
import HCI
import Host
import Platform
import Readings
import Simulator
import Transmitters

/// `vigil-bench memory`: the whole appliance — `Host`, `Appliance` with a heart-rate device from
/// `TransmitterRegistry.builtIn`, and a `SimulatedController` carrying
/// `SimulatedDevices.heartRateMonitor()` among noisy advertisers — on a virtual clock as fast as
/// the CPU allows, until N heart-rate notifications are decoded. Resident memory is sampled
/// every 10,000 notifications: a leak of a few bytes per packet shows as growth over the run.
///
/// Wired as `vigil demo` wires it (Sources/vigil/Commands/DemoCommand.swift, HostRunner's
/// `drain`), with the loop's poll(2) replaced by a jump to the next deadline. A second,
/// absent transmitter keeps the scanner running for the whole run, as it does in a bedroom
/// where one configured sensor is out of range, so advertising reports flow throughout.
enum MemoryBenchmark {
    static let growthLimitBytes = 1_048_576
    static let sampleEvery = 10_000

    struct Options {
        var notifications = 100_000
        var advertisers = 20
        var advertisingInterval: Duration = .seconds(1)
    }

    /// The pieces `HostRunner` owns, driven by hand.
    struct Rig {
        var host: Host
        var controller: SimulatedController
        var appliance: Appliance
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var heartRateReadings = 0
        var advertisements = 0
        var problems: [String] = []

        /// HostRunner.drain plus SimulatedLink: packets both ways until everyone is quiet.
        mutating func pump() {
            while true {
                var progressed = false
                for packet in controller.takePacketsForHost() {
                    host.receive(packet, at: now)
                    progressed = true
                }
                let outputs = host.takeOutputs()
                for output in outputs {
                    progressed = true
                    switch output {
                    case .send(let packet):
                        controller.receive(fromHost: packet, at: now)
                    case .event(let event):
                        switch event {
                        case .log(let level, let message) where level >= .warning:
                            if problems.count < 10 { problems.append("\(level): \(message)") }
                        case .log:
                            break
                        case .controllerReady:
                            appliance.handle(event, host: &host, at: now)
                            appliance.controllerReady(host: &host, at: now)
                        case .advertisement:
                            advertisements += 1
                            appliance.handle(event, host: &host, at: now)
                        default:
                            appliance.handle(event, host: &host, at: now)
                        }
                    }
                }
                for event in appliance.takeEvents() {
                    if case .readings(_, _, let readings) = event, readings.contains(where: { $0.kind == .heartRate }) {
                        heartRateReadings += 1
                    }
                }
                if !progressed { return }
            }
        }

        /// Jumps the virtual clock to the earliest deadline and serves it. False if nothing is scheduled.
        mutating func step() -> Bool {
            // The simulated controller computes its deadline by walking every peripheral: ask once.
            let controllerDeadline = controller.nextDeadline
            guard let next = earliest(host.nextDeadline, appliance.nextDeadline, controllerDeadline) else { return false }
            if next > now { now = next }
            if let d = controllerDeadline, d <= now { controller.handleDeadline(at: now) }
            pump()
            if let d = host.nextDeadline, d <= now { host.handleDeadline(at: now) }
            if let d = appliance.nextDeadline, d <= now { appliance.handleDeadline(host: &host, at: now) }
            pump()
            return true
        }
    }

    static func makeRig(_ options: Options) throws(TransmitterConfigurationError) -> Rig {
        var radio = SimulatedRadio()
        radio.add(SimulatedDevices.heartRateMonitor())
        for i in 0..<options.advertisers {
            // Phases spread the advertisers over the interval, as independent devices would be.
            let phase = options.advertisingInterval * i / max(1, options.advertisers)
            radio.add(SimulatedDevices.noisyAdvertiser(address: DeviceAddress(Address(value: 0xD0_00_00_00_10_00 + UInt64(i)), type: .random),
                                                      interval: options.advertisingInterval, phase: phase))
        }
        let registry = TransmitterRegistry.builtIn
        let strap = try registry.makeDriver(TransmitterConfiguration(typeName: "heart-rate", device: "chest-strap"))
        let spare = try registry.makeDriver(TransmitterConfiguration(typeName: "heart-rate", device: "spare-strap"))
        let appliance = Appliance(devices: [Appliance.Device(driver: strap), Appliance.Device(driver: spare)],
                                  remembered: RememberedTransmitters())
        var configuration = Host.Configuration(staticAddress: Address(value: 0xC2_D3_E4_F5_06_17))
        configuration.connectTimeout = .seconds(5)
        return Rig(host: Host(configuration: configuration), controller: SimulatedController(radio: radio), appliance: appliance)
    }

    static func run(_ options: Options) -> [Figure] {
        print("== memory: host + appliance + simulated controller on a virtual clock, "
              + "\(Format.grouped(options.notifications)) heart-rate notifications, \(options.advertisers) noisy advertisers "
              + "every \(Format.fixed(options.advertisingInterval.milliseconds, places: 0)) ms")
        let name = "memory: resident after \(Format.grouped(options.notifications)) notifications"
        // What the process holds before the rig exists (runtime, libraries, this benchmark's own
        // code): the part of the figure the appliance cannot do anything about.
        let baseline = (try? ProcessStats.residentBytes()) ?? -1
        print("  resident before building the rig: \(Format.megabytes(baseline))")
        var rig: Rig
        do { rig = try makeRig(options) } catch {
            return [Figure.checked(name, "cannot build the appliance: \(error)", target: "< 10 MiB", passes: false)]
        }
        let start = SystemClock.monotonicNow()
        let virtualStart = rig.now
        rig.host.start(at: rig.now)
        rig.pump()
        var samples: [(notifications: Int, bytes: Int)] = []
        var nextSample = sampleEvery
        while rig.heartRateReadings < options.notifications {
            guard rig.step() else {
                return [Figure.checked(name, "stalled: nothing scheduled after \(rig.heartRateReadings) notifications",
                                       target: "< 10 MiB", passes: false)]
            }
            // No reading for ten virtual minutes means the link never came up: say so, do not spin.
            if rig.heartRateReadings == 0 && rig.now - virtualStart > .seconds(600) {
                return [Figure.checked(name, "no heart-rate notification in 600 virtual seconds; host said: \(rig.problems)",
                                       target: "< 10 MiB", passes: false)]
            }
            if rig.heartRateReadings >= nextSample {
                let rss = (try? ProcessStats.residentBytes()) ?? -1
                samples.append((rig.heartRateReadings, rss))
                let anonymous = ProcFigures.statusBytes("RssAnon:", of: getpid()) ?? -1
                let file = ProcFigures.statusBytes("RssFile:", of: getpid()) ?? -1
                print("  \(Format.grouped(rig.heartRateReadings)) notifications: resident \(Format.megabytes(rss)) "
                      + "[anonymous \(Format.megabytes(anonymous)), file-backed \(Format.megabytes(file))] "
                      + "(virtual \(Format.seconds(rig.now - virtualStart)), \(Format.grouped(rig.advertisements)) advertisements)")
                nextSample += sampleEvery
            }
        }
        let wall = SystemClock.monotonicNow() - start
        print("  \(Format.grouped(rig.heartRateReadings)) notifications and \(Format.grouped(rig.advertisements)) advertisements "
              + "in \(Format.seconds(wall)) wall, \(Format.seconds(rig.now - virtualStart)) virtual; still scanning: \(rig.host.isScanning)")
        if !rig.problems.isEmpty { print("  host warnings: \(rig.problems.joined(separator: "; "))") }
        guard let first = samples.first, let last = samples.last, last.bytes > 0 else {
            return [Figure.checked(name, "no samples (fewer than \(sampleEvery) notifications?)", target: "runs", passes: false)]
        }
        let growth = last.bytes - first.bytes
        let figures = [
            // This process also holds the simulated radio and the benchmark: the shipped binary's
            // resident figure is `vigil-bench resident`'s, measured on `vigil run` itself.
            Figure.info(name + " (vigil-bench with the simulator in process)", Format.megabytes(last.bytes)),
            Figure.checked("memory: growth \(Format.grouped(first.notifications)) -> \(Format.grouped(last.notifications))",
                           Format.megabytes(growth), target: "< 1 MiB", passes: growth < growthLimitBytes),
        ]
        figures.forEach { print($0.line) }
        return figures
    }
}
