/// The alarm engine: rules, snooze, escalation and priorities, sans-IO (issue 4).
///
/// Entry point: `AlarmEngine` (inputs with `now`, `nextDeadline`, `handleDeadline(at:)`,
/// `takeEvents()`, `activeAlarms`, `pattern`), configured by `AlarmConfiguration`, persisted
/// through `AlarmEngine.State`.
public enum Alarms {}
