import Alarms
import Clocks
import Readings
import Transmitters

/// The alarm engine fed from the appliance's event stream: glucose readings become samples,
/// any reading counts as hearing its transmitter (signal loss), and a lost controller is an
/// appliance fault. Sans-IO like the engine; the runner persists `engine.state`.
public struct ApplianceAlarms: Sendable {
    public private(set) var engine: AlarmEngine

    public init(configuration: AlarmConfiguration, at now: MonotonicInstant, restoring state: AlarmEngine.State = AlarmEngine.State()) {
        engine = AlarmEngine(configuration: configuration, now: now, restoring: state)
    }

    /// Transmitter types whose silence is a signal-loss alarm: the glucose sources.
    public static let glucoseTypes: Set<String> = ["dexcom", "miaomiao", "bubble", "xbridge", "cgm-service"]

    public var nextDeadline: MonotonicInstant? { engine.nextDeadline }

    public mutating func observe(_ event: ApplianceEvent, monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        switch event {
        case let .readings(device, _, readings):
            engine.receive(.readingReceived(device), at: monotonicNow)
            for reading in readings {
                if let sample = AlarmEngine.GlucoseSample(reading, monotonicNow: monotonicNow, wallNow: wallNow) {
                    engine.receive(.glucose(sample), at: monotonicNow)
                }
            }
        case .bluetooth(.unavailable):
            engine.receive(.faultRaised(.controllerLost), at: monotonicNow)
        case .bluetooth(.poweredOn):
            engine.receive(.faultCleared(.controllerLost), at: monotonicNow)
            engine.receive(.faultCleared(.noController), at: monotonicNow)
        default:
            break
        }
    }

    /// A person's action from the button or the command line.
    public mutating func receive(_ input: AlarmEngine.Input, at now: MonotonicInstant) {
        engine.receive(input, at: now)
    }

    public mutating func handleDeadline(at now: MonotonicInstant) { engine.handleDeadline(at: now) }

    public mutating func takeEvents() -> [AlarmEvent] { engine.takeEvents() }
}
