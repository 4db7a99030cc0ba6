/// The alarm engine: rules, snooze, escalation and priorities, sans-IO.
///
/// Entry point: `AlarmEngine` (inputs with `now`, `nextDeadline`, `handleDeadline(at:)`,
/// `takeEvents()`, `activeAlarms`, `pattern`), configured by `AlarmConfiguration`, persisted
/// through `AlarmEngine.State`. Glucose, signal loss and appliance faults are the engine's
/// own; each device's sensor life, battery, heart rate and fridge temperature follow
/// `DeviceAlarmSettings` per device (`AlarmEngine+DeviceRules.swift`).
public enum Alarms {}
