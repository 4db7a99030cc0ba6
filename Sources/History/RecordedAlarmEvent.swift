import Alarms
import Clocks

/// An alarm event as the history keeps it: `AlarmEvent` with its times on the wall clock
/// (the engine dates events on the monotonic clock, which means nothing after a reboot).
public struct RecordedAlarmEvent: Hashable, Sendable, CustomStringConvertible {
    public enum Change: Hashable, Sendable {
        case raised(AlarmPriority)
        case snoozed(until: WallClockTime)
        case acknowledged(until: WallClockTime)
        case escalated
        case cleared
        case reRaised

        /// The stored name (part of the file format).
        var name: String {
            switch self {
            case .raised: "raised"
            case .snoozed: "snoozed"
            case .acknowledged: "acknowledged"
            case .escalated: "escalated"
            case .cleared: "cleared"
            case .reRaised: "re-raised"
            }
        }

        var until: WallClockTime? {
            switch self {
            case let .snoozed(until), let .acknowledged(until): until
            default: nil
            }
        }

        init?(name: String, priority: Int64, until: Int64?) {
            switch name {
            case "raised":
                guard let p = AlarmPriority(rawValue: Int(priority)) else { return nil }
                self = .raised(p)
            case "snoozed", "acknowledged":
                guard let until else { return nil }
                let time = WallClockTime(microsecondsSinceEpoch: until)
                self = name == "snoozed" ? .snoozed(until: time) : .acknowledged(until: time)
            case "escalated": self = .escalated
            case "cleared": self = .cleared
            case "re-raised": self = .reRaised
            default: return nil
            }
        }
    }

    public var kind: AlarmKind
    public var change: Change
    public var wallTime: WallClockTime

    public init(kind: AlarmKind, change: Change, wallTime: WallClockTime) {
        self.kind = kind
        self.change = change
        self.wallTime = wallTime
    }

    /// Dates an engine event on the wall clock, given both clocks read at the same moment.
    public init(_ event: AlarmEvent, monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        func wall(_ instant: MonotonicInstant) -> WallClockTime { wallNow - (monotonicNow - instant) }
        kind = event.kind
        wallTime = wall(event.time)
        change = switch event.change {
        case let .raised(priority): .raised(priority)
        case let .snoozed(until): .snoozed(until: wall(until))
        case let .acknowledged(until): .acknowledged(until: wall(until))
        case .escalated: .escalated
        case .cleared: .cleared
        case .reRaised: .reRaised
        }
    }

    /// The priority stored with the event: the raised priority, else the kind's own.
    var priority: AlarmPriority {
        if case let .raised(priority) = change { return priority }
        return kind.priority
    }

    public var description: String { "\(wallTime) \(kind.name) \(change.name)" }
}
