import Clocks
import Readings

/// Everything the user configures about alarms.
public struct AlarmConfiguration: Hashable, Sendable {
    /// Thresholds outside every timed profile, and whenever the wall-clock time is unknown.
    public var thresholds: GlucoseThresholds
    /// Per-time-of-day profiles (a night profile); the first that contains the reading's local
    /// time wins.
    public var profiles: [TimedProfile]
    /// Local time = UTC + this offset (configured, since the appliance has no time zone data).
    public var utcOffset: Duration
    /// Devices whose silence raises signal loss.
    public var watchedDevices: [DeviceID]
    /// Silence before signal loss, clamped to 1...30 min: default 20, and never longer
    /// than the 30 minutes after which peers sound their urgent stale-data alarm
    /// (docs/peer-conventions.md §Alarm defaults).
    public private(set) var signalLossAfter: Duration
    /// A glucose reading older than this when it arrives (backfill), or the latest reading once
    /// this old, is stale: it never raises or re-raises a glucose alarm. Two missed 5-minute
    /// readings plus slack.
    public var glucoseFreshFor: Duration
    /// Sounding unacknowledged this long escalates; 5 minutes by default, the interval at which
    /// Dexcom repeats an urgent low (docs/peer-conventions.md §Alarm defaults).
    public var escalateAfter: Duration
    /// Hysteresis: a low or high clears only once glucose is this far back inside the threshold,
    /// so a reading wobbling on the line does not raise and clear every 5 minutes.
    public var clearingMargin: GlucoseConcentration
    /// The longest "snooze all" (xDrip+ PR #2406 asks for 12 h; a day is the ceiling).
    public var maximumSnoozeAll: Duration
    /// Each device's own alarms (sensor life, battery, heart rate, fridge temperature); a
    /// device not listed gets `DeviceAlarmSettings()`.
    public var devices: [DeviceID: DeviceAlarmSettings]
    /// A heart-rate or temperature reading older than this when it arrives (backfill, a
    /// delayed broadcast) never raises or clears an alarm: those devices report every second
    /// to every few minutes, so anything older says nothing about now.
    public var deviceReadingFreshFor: Duration

    public static let maximumSignalLossAfter = Duration.seconds(30 * 60)

    public init(
        thresholds: GlucoseThresholds = .standard,
        profiles: [TimedProfile] = [],
        utcOffset: Duration = .zero,
        watchedDevices: [DeviceID] = [],
        signalLossAfter: Duration = .seconds(20 * 60),
        glucoseFreshFor: Duration = .seconds(11 * 60),
        escalateAfter: Duration = .seconds(5 * 60),
        clearingMargin: GlucoseConcentration = GlucoseConcentration(milligramsPerDeciliter: 5),
        maximumSnoozeAll: Duration = .seconds(24 * 3600),
        devices: [DeviceID: DeviceAlarmSettings] = [:],
        deviceReadingFreshFor: Duration = .seconds(5 * 60)
    ) {
        self.thresholds = thresholds
        self.profiles = profiles
        self.utcOffset = utcOffset
        self.watchedDevices = watchedDevices
        self.signalLossAfter = min(max(signalLossAfter, .seconds(60)), Self.maximumSignalLossAfter)
        self.glucoseFreshFor = glucoseFreshFor
        self.escalateAfter = escalateAfter
        self.clearingMargin = clearingMargin
        self.maximumSnoozeAll = maximumSnoozeAll
        self.devices = devices
        self.deviceReadingFreshFor = deviceReadingFreshFor
    }

    /// The alarm settings of `device`.
    public func settings(for device: DeviceID) -> DeviceAlarmSettings { devices[device] ?? DeviceAlarmSettings() }

    /// The thresholds in force for a reading taken at `wallClockTime` (nil: unknown, the
    /// default thresholds apply).
    public func thresholds(at wallClockTime: WallClockTime?) -> GlucoseThresholds {
        guard let wallClockTime else { return thresholds }
        let local = wallClockTime.secondsSinceEpoch + utcOffset.nanosecondsClamped / 1_000_000_000
        let secondOfDay = ((local % 86400) + 86400) % 86400
        let time = TimeOfDay(minutesAfterMidnight: Int(secondOfDay / 60))
        return profiles.first { $0.contains(time) }?.thresholds ?? thresholds
    }
}
