import Clocks

/// One change the history keeps: every raise, snooze, acknowledge, escalation and clear is an
/// event, so what the appliance did during a night can be told afterwards.
public struct AlarmEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Change: Hashable, Sendable {
        case raised(AlarmPriority)
        case snoozed(until: MonotonicInstant)
        case acknowledged(until: MonotonicInstant)
        /// Sounding unacknowledged for the escalation delay: now the insistent form.
        case escalated
        /// The condition ended.
        case cleared
        /// A snooze or acknowledgement ran out while the condition still holds.
        case reRaised
    }

    public var time: MonotonicInstant
    public var kind: AlarmKind
    public var change: Change

    public init(time: MonotonicInstant, kind: AlarmKind, change: Change) {
        self.time = time
        self.kind = kind
        self.change = change
    }

    public var description: String { "\(time) \(kind) \(change)" }
}
