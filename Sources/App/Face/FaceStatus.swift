import Alarms
import Clocks

/// One line about the alarms for a person looking at the appliance (the console face, `vigil
/// status` later): what sounds, what is snoozed and for how long, or that all is well.
public enum FaceStatus {
    public static func line(for alarms: [ActiveAlarm], at now: MonotonicInstant) -> String {
        guard !alarms.isEmpty else { return "all well" }
        return alarms.map { alarm in
            let state: String = switch alarm.status {
            case .sounding: "SOUNDING (\(alarm.priority))"
            case .escalated: "SOUNDING, escalated (\(alarm.priority))"
            case let .snoozed(until): "snoozed \(minutes(until - now)) more"
            case .awaitingFreshData: "waiting for fresh data"
            case .quiet: "noted"
            }
            return "\(alarm.kind.name) \(state)"
        }.joined(separator: " · ")
    }

    /// Whole minutes, rounded up: "1 min" until the last second.
    static func minutes(_ d: Duration) -> String {
        let seconds = max(0, d.components.seconds)
        return "\((seconds + 59) / 60) min"
    }
}
