import Readings

/// A battery report as the alarm engine needs it.
public enum BatteryReport: Hashable, Sendable {
    case percent(Percent)
    /// Transmitters that report a voltage, not a percentage (Dexcom G5/G6 voltage A).
    case voltage(millivolts: Int)
    /// The device's own verdict (a status bit): true raises "battery low", false clears it.
    case deviceSaysLow(Bool)
}
