import App
import Clocks
import Host
import Platform
import Transmitters

/// `vigil run` and `vigil demo` as a host session: the appliance, its events printed for
/// scripts (`--events-json`) or logged, and remembered transmitters saved as they are learned.
struct ApplianceSession: HostSession {
    var appliance: Appliance
    let eventsJSON: Bool
    /// Print each event as a line for a person watching (the demo's console face).
    var console = false
    let logger: Logger
    /// Where remembered transmitter addresses are saved; nil for the demo.
    let state: StateDirectory?
    var exitCode: Int32 = 0
    var isFinished: Bool { false }
    var nextDeadline: MonotonicInstant? { appliance.nextDeadline }

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
        report()
    }

    private mutating func report() {
        for event in appliance.takeEvents() {
            if eventsJSON {
                for line in event.json(monotonicNow: SystemClock.monotonicNow(), wallNow: SystemClock.wallNow()) { print(line.rendered) }
            } else if console {
                print(event.logLine)
            }
            switch event {
            case .readings, .transmitter(_, _, .info):
                logger.log(.info, event.logLine)
            case .rememberedAddress:
                logger.log(.notice, event.logLine)
                state?.saveRemembered(appliance.remembered)
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
