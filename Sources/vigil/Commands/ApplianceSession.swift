import Alarms
import App
import Clocks
import Host
import Platform
import Readings
import Transmitters

/// `vigil run` and `vigil demo` as a host session: the appliance, its events printed for
/// scripts (`--events-json`) or logged, and remembered transmitters saved as they are learned.
struct ApplianceSession: HostSession {
    var appliance: Appliance
    /// The alarm engine listening to the appliance; nil runs without alarms.
    var alarms: ApplianceAlarms?
    let eventsJSON: Bool
    /// Print each event as a line for a person watching (the demo's console face).
    var console = false
    let logger: Logger
    /// Where remembered transmitter addresses are saved; nil for the demo.
    let state: StateDirectory?
    var exitCode: Int32 = 0
    /// Every driver's saved state, written whole when one changes.
    var driverStates: [DeviceID: [String: String]] = [:]
    var isFinished: Bool { false }
    var nextDeadline: MonotonicInstant? { earliest(appliance.nextDeadline, alarms?.nextDeadline) }

    mutating func controllerReady(host: inout Host, at now: MonotonicInstant) {
        appliance.controllerReady(host: &host, at: now)
        report()
    }

    mutating func handle(_ event: Host.Event, host: inout Host, at now: MonotonicInstant) {
        appliance.handle(event, host: &host, at: now)
        report()
    }

    mutating func handleDeadline(host: inout Host, at now: MonotonicInstant) {
        appliance.handleDeadline(host: &host, at: now)
        if let d = alarms?.nextDeadline, now >= d { alarms?.handleDeadline(at: now) }
        report()
    }

    private mutating func report() {
        let now = SystemClock.monotonicNow()
        let wallNow = SystemClock.wallNow()
        var events = appliance.takeEvents()
        if alarms != nil {
            for event in events { alarms?.observe(event, monotonicNow: now, wallNow: wallNow) }
            let raised = alarms?.takeEvents() ?? []
            events += raised.map(ApplianceEvent.alarm)
            if !raised.isEmpty, let alarms { state?.saveAlarmState(alarms.engine.state, at: now) }
        }
        for event in events {
            if eventsJSON {
                for line in event.json(monotonicNow: now, wallNow: wallNow) { print(line.rendered) }
            } else if console {
                print(event.logLine)
            }
            switch event {
            case .readings, .transmitter(_, _, .info):
                logger.log(.info, event.logLine)
            case .rememberedAddress:
                logger.log(.notice, event.logLine)
                state?.saveRemembered(appliance.remembered)
            case .driverState(let device, let values):
                logger.log(.info, event.logLine)
                driverStates[device] = values
                state?.saveDriverStates(driverStates)
            case .alarm:
                logger.log(.warning, event.logLine)
            case .bluetooth(.unavailable), .transmitter(_, _, .noData), .transmitter(_, _, .pairingFailed),
                 .transmitter(_, _, .incompatible), .transmitter(_, _, .malformedValue):
                logger.log(.warning, event.logLine)
            default:
                logger.log(.notice, event.logLine)
            }
        }
        StandardOutput.flush()
    }
}

extension StateDirectory {
    /// Active alarms and snoozes survive a restart or a power cut (issue 4).
    func loadAlarmState(at now: MonotonicInstant) -> AlarmEngine.State {
        let file = path + "/alarm-state"
        guard FileSystem.exists(path: file), let bytes = try? FileSystem.readFile(path: file) else { return AlarmEngine.State() }
        do {
            return try AlarmEngine.State(text: String(decoding: bytes, as: UTF8.self), at: now)
        } catch {
            logger.log(.error, "\(file): \(error); alarms start afresh")
            return AlarmEngine.State()
        }
    }

    func saveAlarmState(_ state: AlarmEngine.State, at now: MonotonicInstant) {
        do {
            try AtomicFile.write(path: path + "/alarm-state", bytes: Array(state.text(at: now).utf8), mode: 0o600)
        } catch {
            logger.log(.error, "cannot save the alarm state: \(error)")
        }
    }

    /// Drivers' state between runs: one `device<TAB>key<TAB>value` line each (names may hold spaces).
    func loadDriverStates() -> [DeviceID: [String: String]] {
        let file = path + "/driver-state"
        guard FileSystem.exists(path: file), let bytes = try? FileSystem.readFile(path: file) else { return [:] }
        var states: [DeviceID: [String: String]] = [:]
        for (number, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                logger.log(.warning, "\(file):\(number + 1): expected device, key and value separated by tabs; line ignored")
                continue
            }
            states[DeviceID(String(fields[0])), default: [:]][String(fields[1])] = String(fields[2])
        }
        return states
    }

    func saveDriverStates(_ states: [DeviceID: [String: String]]) {
        var text = ""
        for (device, values) in states.sorted(by: { $0.key < $1.key }) {
            for (key, value) in values.sorted(by: { $0.key < $1.key }) { text += "\(device.rawValue)\t\(key)\t\(value)\n" }
        }
        do {
            try AtomicFile.write(path: path + "/driver-state", bytes: Array(text.utf8), mode: 0o600)
        } catch {
            logger.log(.error, "cannot save transmitter state: \(error)")
        }
    }

    func loadRemembered() -> RememberedTransmitters {
        let file = path + "/transmitters"
        guard FileSystem.exists(path: file) else { return RememberedTransmitters() }
        do {
            return try RememberedTransmitters(parsing: String(decoding: try FileSystem.readFile(path: file), as: UTF8.self))
        } catch {
            logger.log(.error, "\(file): \(error); transmitters will be searched for again")
            return RememberedTransmitters()
        }
    }

    func saveRemembered(_ remembered: RememberedTransmitters) {
        do {
            try AtomicFile.write(path: path + "/transmitters", bytes: Array(remembered.serialized.utf8), mode: 0o600)
        } catch {
            logger.log(.error, "cannot save remembered transmitters: \(error)")
        }
    }
}
