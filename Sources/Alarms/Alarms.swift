/// The alarm engine: rules, snooze, escalation and priorities, sans-IO (issue 4).
public enum Alarms {}
