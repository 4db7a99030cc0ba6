import Alarms

/// What the button's gestures do to the alarms, as configured.
///
/// - Short press: snooze the alarm the buzzer is playing for `snooze(for:)`.
/// - Long press (3 s): `longPress`, either acknowledge the playing alarm or "snooze all".
/// - Double press: ask for an export (the history issue does it; `ApplianceFace` reports it).
/// - Held at boot: the full pattern test (the start-up chirp already plays at every start).
public struct ButtonActions: Hashable, Sendable {
    public enum LongPress: Hashable, Sendable {
        /// Acknowledge the playing alarm for its `AlarmKind.acknowledgementInterval`.
        case acknowledge
        /// "Snooze all" for this long (the engine caps it at `maximumSnoozeAll`). It never
        /// covers urgent low, signal loss or faults, so when one of those is playing the long
        /// press also snoozes that one as a short press would: a deliberate 3 s hold is never
        /// ignored while the buzzer sounds.
        case snoozeAll(for: Duration)
    }

    public var longPress: LongPress
    /// Short-press snoozes that replace `defaultSnooze(for:)` for some kinds.
    public var snoozeOverrides: [AlarmKind: Duration]

    /// Acknowledge by default: it silences only what is sounding, for a bounded time.
    public init(longPress: LongPress = .acknowledge, snoozeOverrides: [AlarmKind: Duration] = [:]) {
        self.longPress = longPress
        self.snoozeOverrides = snoozeOverrides
    }

    /// The short-press snooze for `kind`: the override or the default, never above
    /// `kind.maximumSnooze` (the engine would clamp it anyway; clamping here keeps the
    /// history's "snoozed until" honest about what was asked).
    public func snooze(for kind: AlarmKind) -> Duration {
        min(snoozeOverrides[kind] ?? Self.defaultSnooze(for: kind), kind.maximumSnooze)
    }

    /// Defaults are Nightscout's first snooze choice per alarm (docs/peer-conventions.md §Alarm
    /// defaults: urgent low 15/30/45, low 15-60, high 30-120 min):
    /// - urgent low, urgent low soon, low, falling fast, rising fast: 15 min — a low needs a
    ///   recheck soon after treating it;
    /// - high, urgent high: 30 min — a correction takes longer to act;
    /// - signal loss: 30 min (its own ceiling): the next look if the sensor is still silent;
    /// - appliance faults: 60 min: long enough to fetch a new SD card or controller, short
    ///   enough that a broken box is not forgotten overnight;
    /// - any other channel: 30 min.
    public static func defaultSnooze(for kind: AlarmKind) -> Duration {
        // `if case`, not `switch`: other channels (heart rate, fridge) are being added to
        // `AlarmKind`, and they take the last line without this file changing.
        if kind == .glucose(.high) || kind == .glucose(.urgentHigh) { return .seconds(30 * 60) }
        if case .glucose = kind { return .seconds(15 * 60) }
        if case .signalLoss = kind { return .seconds(30 * 60) }
        if case .fault = kind { return .seconds(60 * 60) }
        return .seconds(30 * 60)
    }
}
