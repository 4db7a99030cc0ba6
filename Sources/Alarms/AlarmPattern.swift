/// What the buzzer and LED should do now: abstract, so GPIO, console and test backends all
/// render the same decision.
public struct AlarmPattern: Hashable, Sendable, CustomStringConvertible {
    public enum Buzzer: Hashable, Sendable {
        case silent
        /// Repeated bursts of `priority.pulsesPerBurst` pulses; `escalated` is the more insistent
        /// form played once an alarm has gone unacknowledged (`AlarmConfiguration.escalateAfter`).
        /// `kind` lets a backend give each alarm its own voice within its priority.
        case bursts(AlarmPriority, escalated: Bool, kind: AlarmKind)
    }

    public enum LED: Hashable, Sendable {
        /// A calm heartbeat: all is well.
        case heartbeat
        /// A transmitter is not being heard (signal loss), nothing sounding.
        case searching
        /// An appliance fault is active, nothing sounding.
        case fault
        /// An alarm is active but snoozed or acknowledged.
        case snoozed
        /// An alarm is sounding at this priority.
        case alarm(AlarmPriority)
    }

    public var buzzer: Buzzer
    public var led: LED

    public init(buzzer: Buzzer, led: LED) {
        self.buzzer = buzzer
        self.led = led
    }

    public static let allWell = AlarmPattern(buzzer: .silent, led: .heartbeat)

    public var description: String { "\(buzzer) \(led)" }
}
