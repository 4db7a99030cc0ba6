import Clocks

/// Why persisted alarm state could not be read back.
public enum AlarmStateError: Error, Hashable, Sendable {
    case missingHeader
    case unsupportedVersion(String)
    case malformedLine(number: Int, line: String)
    case unknownAlarm(number: Int, name: String)
    case unknownStatus(number: Int, status: String)
    case duplicateAlarm(number: Int, name: String)
}

extension AlarmEngine {
    /// What must survive a restart or power cut: the active alarms and "snooze all",
    /// so that a reboot or a power cut during an active alarm brings it back instead of silencing
    /// it.
    ///
    /// Persisted as text, with every time written relative to the moment of saving, because the
    /// monotonic clock restarts at boot; restoring rebases onto the new `now`. Downtime is not
    /// known to the core, so a snooze resumes with the time it had left. Glucose history is not
    /// kept: after a restart, alarms wait for fresh readings, as they must.
    ///
    /// Format, one record per line, fields separated by one space, the alarm name last:
    /// ```
    /// vigil-alarms 1
    /// snooze-all <ms left>
    /// alarm sounding <ms to escalation> <ms since raised> <name>
    /// alarm escalated - <ms since raised> <name>
    /// alarm snoozed <ms left> <ms since raised> <name>
    /// alarm awaiting-fresh-data - <ms since raised> <name>
    /// alarm quiet <ms to reminder, or -> <ms since raised> <name>
    /// ```
    public struct State: Hashable, Sendable {
        public var alarms: [AlarmKind: ActiveAlarm]
        public var snoozeAllUntil: MonotonicInstant?

        public init(alarms: [AlarmKind: ActiveAlarm] = [:], snoozeAllUntil: MonotonicInstant? = nil) {
            self.alarms = alarms
            self.snoozeAllUntil = snoozeAllUntil
        }

        static let header = "vigil-alarms 1"

        /// The state as text, times relative to `now`.
        public func text(at now: MonotonicInstant) -> String {
            func ms(_ d: Duration) -> String { String(d.nanosecondsClamped / 1_000_000) }
            var lines = [Self.header]
            if let until = snoozeAllUntil, until > now { lines.append("snooze-all \(ms(until - now))") }
            for alarm in alarms.values.sorted(by: { $0.kind < $1.kind }) {
                let status: String
                switch alarm.status {
                case let .sounding(escalatesAt): status = "sounding \(ms(max(escalatesAt - now, .zero)))"
                case .escalated: status = "escalated -"
                case let .snoozed(until): status = "snoozed \(ms(max(until - now, .zero)))"
                case .awaitingFreshData: status = "awaiting-fresh-data -"
                case let .quiet(remindsAt): status = "quiet \(remindsAt.map { ms(max($0 - now, .zero)) } ?? "-")"
                }
                lines.append("alarm \(status) \(ms(max(now - alarm.raisedAt, .zero))) \(alarm.kind.name)")
            }
            return lines.joined(separator: "\n") + "\n"
        }

        /// Reads `text(at:)` back, rebasing its times onto `now`.
        public init(text: String, at now: MonotonicInstant) throws(AlarmStateError) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let first = lines.first, first.hasPrefix("vigil-alarms ") else { throw .missingHeader }
            guard first == Self.header else { throw .unsupportedVersion(String(first.dropFirst("vigil-alarms ".count))) }
            self.init()
            for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
                let number = index + 1
                let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
                func milliseconds(_ field: String) throws(AlarmStateError) -> Duration {
                    guard let value = Int64(field), value >= 0 else { throw .malformedLine(number: number, line: line) }
                    return .milliseconds(value)
                }
                switch fields.first {
                case "snooze-all" where fields.count == 2:
                    snoozeAllUntil = now + (try milliseconds(fields[1]))
                case "alarm" where fields.count == 5:
                    guard let kind = AlarmKind(name: fields[4]) else { throw .unknownAlarm(number: number, name: fields[4]) }
                    guard alarms[kind] == nil else { throw .duplicateAlarm(number: number, name: fields[4]) }
                    let raisedAt = now - (try milliseconds(fields[3]))
                    let status: ActiveAlarm.Status
                    switch fields[1] {
                    case "sounding": status = .sounding(escalatesAt: now + (try milliseconds(fields[2])))
                    case "snoozed": status = .snoozed(until: now + (try milliseconds(fields[2])))
                    case "escalated" where fields[2] == "-": status = .escalated
                    case "awaiting-fresh-data" where fields[2] == "-": status = .awaitingFreshData
                    case "quiet" where fields[2] == "-": status = .quiet(remindsAt: nil)
                    case "quiet": status = .quiet(remindsAt: now + (try milliseconds(fields[2])))
                    default: throw .unknownStatus(number: number, status: fields[1])
                    }
                    alarms[kind] = ActiveAlarm(kind: kind, raisedAt: raisedAt, status: status)
                default:
                    throw .malformedLine(number: number, line: line)
                }
            }
        }
    }
}
