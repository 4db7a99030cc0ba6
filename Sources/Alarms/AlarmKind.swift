import Readings

/// Alarm priority in the manner of IEC 60601-1-8 (docs/peer-conventions.md §Alarm
/// sounds): the priority is heard in the pattern, not only in the loudness.
public enum AlarmPriority: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Pulses in one burst: high 10, medium 3, low 1 (IEC 60601-1-8 allows 1-2 for low).
    public var pulsesPerBurst: Int {
        switch self {
        case .high: 10
        case .medium: 3
        case .low: 1
        }
    }

    public var description: String {
        switch self {
        case .high: "high"
        case .medium: "medium"
        case .low: "low"
        }
    }
}

/// The glucose alarms (defaults from the field: docs/peer-conventions.md §Alarm defaults).
public enum GlucoseAlarm: String, CaseIterable, Hashable, Sendable {
    case urgentLow = "urgent-low"
    case urgentLowSoon = "urgent-low-soon"
    case low
    case high
    case urgentHigh = "urgent-high"
    case risingFast = "rising-fast"
    case fallingFast = "falling-fast"
}

/// Faults of the appliance itself: when the receiver fails, nobody else will alarm
/// (docs/peer-conventions.md §What users complain about, last item).
public enum ApplianceFault: String, CaseIterable, Hashable, Sendable {
    case noController = "no-controller"
    case controllerLost = "controller-lost"
    case storageFailing = "storage-failing"
    case clockNotSet = "clock-not-set"
    case configurationProblem = "configuration-problem"
    /// The buzzer, LED or button cannot be driven: the lines could not be had at start, or a
    /// write or read failed since. What still works (the other half of the face, the log,
    /// `vigil status`, systemd's status line) must say so: an alarm nobody hears is silent.
    case faceFailing = "face-failing"
}

/// One alarm channel. Signal loss is its own channel per device, so acknowledging "no data"
/// never touches a glucose alarm (docs/peer-conventions.md §Alarm defaults, "Stale data is its own
/// channel").
public enum AlarmKind: Hashable, Comparable, Sendable, CustomStringConvertible {
    case glucose(GlucoseAlarm)
    case signalLoss(DeviceID)
    case fault(ApplianceFault)
    /// One device's sensor, battery, heart-rate or temperature alarm (`DeviceAlarm`).
    case device(DeviceAlarm, DeviceID)

    public static let urgentLow = AlarmKind.glucose(.urgentLow)

    /// Why these priorities: high means "act now or be harmed" — a severe hypo now or within
    /// 20 minutes. Medium: conditions that need action soon or mean nothing is watching
    /// (a low, no data, no radio, no configuration). Low: worth knowing, not urgent.
    public var priority: AlarmPriority {
        switch self {
        case let .glucose(alarm):
            switch alarm {
            case .urgentLow, .urgentLowSoon: .high
            case .low, .urgentHigh, .fallingFast: .medium
            case .high, .risingFast: .low
            }
        case .signalLoss: .medium
        case let .fault(fault):
            switch fault {
            case .noController, .controllerLost, .configurationProblem, .faceFailing: .medium
            case .storageFailing, .clockNotSet: .low
            }
        case let .device(alarm, _):
            switch alarm {
            // Informational: a warm-up, a sensor to change tomorrow, a battery with days left.
            // Nothing is wrong yet, and signal loss covers the day it becomes so.
            case .sensorWarmUp, .sensorExpiring, .batteryLow: .low
            // Medium, like signal loss: an ended sensor means nothing watches glucose until a
            // person changes it. A heart rate or fridge out of range for minutes needs a person
            // soon, but is not the minutes-to-harm of a severe hypo (insulin keeps for weeks
            // below 30 °C; manufacturers' labels), so never high.
            case .sensorEnded, .heartRateLow, .heartRateHigh, .temperatureLow, .temperatureHigh: .medium
            }
        }
    }

    /// Informational alarms chirp once when raised (`informationalChirp`), then stay active but
    /// quiet, so a normal sensor warm-up at 3 a.m. never wakes the house. Some remind again with
    /// one more chirp every `reminderInterval` while they last.
    public var isInformational: Bool {
        if case let .device(alarm, _) = self {
            return [.sensorWarmUp, .sensorExpiring, .batteryLow].contains(alarm)
        }
        return false
    }

    /// How long an informational alarm sounds when raised or reminding: long enough for one
    /// low-priority pulse (200 ms, then 20 s of silence: `BuzzerRhythm`), short enough that it
    /// never repeats or escalates.
    public static let informationalChirp = Duration.seconds(5)

    /// For informational alarms: chirp again this long after going quiet (nil: once only).
    /// Expiring sensor and low battery remind once a day, like the peers' daily notices; a
    /// warm-up ends by itself within hours, so it chirps once.
    public var reminderInterval: Duration? {
        guard case let .device(alarm, _) = self else { return nil }
        switch alarm {
        case .sensorExpiring, .batteryLow: return .seconds(24 * 3600)
        default: return nil
        }
    }

    /// The longest single snooze. Urgent low re-sounds after at most 30 min if still low
    /// (Dexcom); signal loss is bounded by its own 30 min ceiling; the rest follow the
    /// Nightscout snooze choices, widened for caregivers of sleeping children (xDrip+ PR #2406).
    public var maximumSnooze: Duration {
        switch self {
        case let .glucose(alarm):
            switch alarm {
            case .urgentLow, .urgentLowSoon: .seconds(30 * 60)
            case .low, .fallingFast, .risingFast: .seconds(2 * 3600)
            case .high, .urgentHigh: .seconds(12 * 3600)
            }
        case .signalLoss: .seconds(30 * 60)
        case .fault: .seconds(4 * 3600)
        case let .device(alarm, _):
            switch alarm {
            case .sensorWarmUp: .seconds(2 * 3600)
            case .sensorExpiring, .batteryLow: .seconds(24 * 3600)
            // Changing a sensor takes a trip for a new one and its warm-up, so 30 minutes (the
            // signal-loss bound) would nag all night; but glucose is unwatched meanwhile, so it
            // comes back within 2 hours and snooze-all never covers it.
            case .sensorEnded: .seconds(2 * 3600)
            case .heartRateLow, .heartRateHigh: .seconds(2 * 3600)
            // A fridge repair or a move to a cool box takes time; insulin keeps for weeks
            // below 30 °C, so hours of snooze do no harm.
            case .temperatureLow, .temperatureHigh: .seconds(4 * 3600)
            }
        }
    }

    /// How long an acknowledgement silences the alarm while its condition persists.
    public var acknowledgementInterval: Duration {
        switch self {
        case let .glucose(alarm):
            switch alarm {
            case .urgentLow: .seconds(30 * 60)
            case .urgentLowSoon, .low, .fallingFast, .risingFast: .seconds(15 * 60)
            case .high, .urgentHigh: .seconds(60 * 60)
            }
        case .signalLoss: .seconds(30 * 60)
        case .fault: .seconds(60 * 60)
        case let .device(alarm, _):
            switch alarm {
            case .sensorWarmUp: .seconds(2 * 3600)
            case .sensorExpiring, .batteryLow: .seconds(24 * 3600)
            case .sensorEnded, .temperatureLow, .temperatureHigh: .seconds(60 * 60)
            case .heartRateLow, .heartRateHigh: .seconds(30 * 60)
            }
        }
    }

    /// Whether "snooze all" covers this alarm. Never urgent low, the one alarm that must always
    /// sound; never signal loss, an ended sensor or appliance faults either, because while those
    /// last the appliance cannot see an urgent low, so silencing them for hours would silence
    /// urgent low too. Everything else about a device (informational ones included, heart rate,
    /// fridge) is covered: "snooze all" is a person's explicit choice, and none of those blinds the
    /// glucose watch.
    public var isCoveredBySnoozeAll: Bool {
        switch self {
        case let .glucose(alarm): alarm != .urgentLow
        case let .device(alarm, _): alarm != .sensorEnded
        case .signalLoss, .fault: false
        }
    }

    /// Stable name for persistence and history: `urgent-low`, `signal-loss:dexcom`,
    /// `fault:storage-failing`, `sensor-warmup:g6`, `temperature-high:fridge`.
    public var name: String {
        switch self {
        case let .glucose(alarm): alarm.rawValue
        case let .signalLoss(device): "signal-loss:\(device.rawValue)"
        case let .fault(fault): "fault:\(fault.rawValue)"
        case let .device(alarm, device): "\(alarm.rawValue):\(device.rawValue)"
        }
    }

    public init?(name: String) {
        if let alarm = GlucoseAlarm(rawValue: name) {
            self = .glucose(alarm)
        } else if name.hasPrefix("signal-loss:"), name.count > "signal-loss:".count {
            self = .signalLoss(DeviceID(String(name.dropFirst("signal-loss:".count))))
        } else if name.hasPrefix("fault:"), let fault = ApplianceFault(rawValue: String(name.dropFirst("fault:".count))) {
            self = .fault(fault)
        } else if let alarm = DeviceAlarm.allCases.first(where: { name.hasPrefix($0.rawValue + ":") }),
                  name.count > alarm.rawValue.count + 1 {
            self = .device(alarm, DeviceID(String(name.dropFirst(alarm.rawValue.count + 1))))
        } else {
            return nil
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.name < b.name }

    public var description: String { name }
}
