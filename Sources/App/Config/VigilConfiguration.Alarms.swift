import Alarms
import Readings

extension VigilConfiguration {
    /// `[alarms]` and `[alarms.night]`: glucose thresholds, rate alarms, signal loss and a
    /// night profile. Values are stored in mg/dL whatever `units` the file used;
    /// `units` is kept for showing them back the way the person wrote them.
    public struct Alarms: Equatable, Sendable {
        /// `units`: the unit every glucose value and rate in `[alarms]` is written in.
        public enum Units: String, CaseIterable, Sendable {
            case milligramsPerDeciliter = "mg/dL"
            case millimolesPerLiter = "mmol/L"
        }

        /// `urgent-low` bounds in mg/dL: 40 is the lowest value CGMs report as a number
        /// (`GlucoseThresholds.lowestUrgentLow`); above 90 it would sound at glucose that is
        /// not dangerously low and teach people to ignore it.
        public static let urgentLowRange = 40.0...90.0
        /// Bounds for every other threshold: the range CGMs report as numbers, so a threshold
        /// outside it could never fire.
        public static let glucoseRange = 40.0...400.0
        /// Rate alarm bounds in mg/dL per minute: 10 is beyond physiological change (anything
        /// above could never fire); below 0.5 ordinary drift would sound.
        public static let rateRange = 0.5...10.0
        /// `urgent-low-soon-minutes` bounds: Dexcom uses 20; over 30 minutes a straight-line
        /// forecast is mostly noise, under 10 it adds little to urgent low itself.
        public static let urgentLowSoonMinutesRange = 10...30
        /// `signal-loss-minutes` bounds: under 10 one missed 5-minute reading would sound; 30
        /// is the ceiling (`AlarmConfiguration.maximumSignalLossAfter`).
        public static let signalLossMinutesRange = 10...30

        /// `[alarms.night]`: its own low and high between `from` and `to` local time.
        public struct Night: Equatable, Sendable {
            /// `from`, `to`: "HH:MM"; the span may cross midnight.
            public var from: TimeOfDay
            public var to: TimeOfDay
            /// `low`, `high`: nil (`false`) turns that alarm off at night; absent keys take
            /// the day's value when the section is read.
            public var low: GlucoseConcentration?
            public var high: GlucoseConcentration?

            public init(from: TimeOfDay, to: TimeOfDay, low: GlucoseConcentration?, high: GlucoseConcentration?) {
                self.from = from
                self.to = to
                self.low = low
                self.high = high
            }
        }

        public var units: Units
        /// `urgent-low`, `urgent-low-soon` (+ `-minutes`), `low`, `high`, `urgent-high`,
        /// `rising-fast`, `falling-fast`.
        public var thresholds: GlucoseThresholds
        /// `signal-loss-minutes`
        public var signalLossMinutes: Int
        /// `utc-offset`: local time = UTC + this, for the night profile (the appliance has no
        /// time zone data; change it when the clocks change).
        public var utcOffset: Duration
        public var night: Night?

        public init(
            units: Units = .milligramsPerDeciliter, thresholds: GlucoseThresholds = .standard,
            signalLossMinutes: Int = 20, utcOffset: Duration = .zero, night: Night? = nil
        ) {
            self.units = units
            self.thresholds = thresholds
            self.signalLossMinutes = signalLossMinutes
            self.utcOffset = utcOffset
            self.night = night
        }

        /// The engine's configuration: these thresholds, the night profile on top of them,
        /// and signal loss for `watchedDevices` (the CGM transmitters the caller configured).
        public func alarmConfiguration(watchedDevices: [DeviceID]) -> AlarmConfiguration {
            var profiles: [TimedProfile] = []
            if let night {
                var nightThresholds = thresholds
                nightThresholds.low = night.low
                nightThresholds.high = night.high
                profiles.append(TimedProfile(start: night.from, end: night.to, thresholds: nightThresholds))
            }
            return AlarmConfiguration(
                thresholds: thresholds, profiles: profiles, utcOffset: utcOffset, watchedDevices: watchedDevices,
                signalLossAfter: .seconds(signalLossMinutes * 60))
        }
    }
}
