import Clocks

/// An alarm whose condition holds, whether sounding or silenced.
public struct ActiveAlarm: Hashable, Sendable, CustomStringConvertible {
    /// Where an active alarm stands.
    public enum Status: Hashable, Sendable {
        /// Sounding; escalates at `escalatesAt` unless acknowledged or snoozed.
        case sounding(escalatesAt: MonotonicInstant)
        /// Sounding the insistent form: it went unacknowledged.
        case escalated
        /// Silenced (snooze or acknowledgement) until then; it sounds again if still active.
        case snoozed(until: MonotonicInstant)
        /// A glucose alarm whose snooze ran out while the data was stale: it sounds again only if a
        /// fresh reading still shows the condition.
        case awaitingFreshData
        /// An informational alarm after its chirp: active (history, LED) but silent while its
        /// condition lasts, until `remindsAt` (one more chirp) or for good (nil). A sounding
        /// informational alarm turns quiet at its `escalatesAt` instead of escalating.
        case quiet(remindsAt: MonotonicInstant?)

        var deadline: MonotonicInstant? {
            switch self {
            case let .sounding(escalatesAt): escalatesAt
            case let .snoozed(until): until
            case let .quiet(remindsAt): remindsAt
            case .escalated, .awaitingFreshData: nil
            }
        }

        var snoozedUntil: MonotonicInstant? {
            if case let .snoozed(until) = self { until } else { nil }
        }
    }

    public var kind: AlarmKind
    public var raisedAt: MonotonicInstant
    public var status: Status

    public init(kind: AlarmKind, raisedAt: MonotonicInstant, status: Status) {
        self.kind = kind
        self.raisedAt = raisedAt
        self.status = status
    }

    public var priority: AlarmPriority { kind.priority }

    public var isSounding: Bool {
        switch status {
        case .sounding, .escalated: true
        case .snoozed, .awaitingFreshData, .quiet: false
        }
    }

    public var isEscalated: Bool { status == .escalated }

    public var description: String { "\(kind) \(status) since \(raisedAt)" }
}
