import Readings

/// A rate of change of glucose, in mg/dL per minute (mmol/L per minute is a view).
public struct GlucoseRate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milligramsPerDeciliterPerMinute: Double

    public init(milligramsPerDeciliterPerMinute: Double) {
        self.milligramsPerDeciliterPerMinute = milligramsPerDeciliterPerMinute
    }

    public init(millimolesPerLiterPerMinute: Double) {
        self.milligramsPerDeciliterPerMinute =
            millimolesPerLiterPerMinute * GlucoseConcentration.milligramsPerDeciliterPerMillimolePerLiter
    }

    public static func < (a: Self, b: Self) -> Bool {
        a.milligramsPerDeciliterPerMinute < b.milligramsPerDeciliterPerMinute
    }

    public var description: String { "\(milligramsPerDeciliterPerMinute) mg/dL/min" }
}

/// One profile's glucose thresholds. `nil` turns an alarm off; urgent low has no off
/// (as in Dexcom's app, where it "cannot be turned off": it is the alarm that must always sound).
///
/// Defaults (docs/peer-conventions.md §Alarm defaults): urgent low 55 and its
/// 20-minute forecast (Dexcom G6/G7), low 70 (Dexcom, xDrip4iOS), high 250 (Dexcom G7),
/// urgent high 300 — no single field default exists (Dexcom has none, Nightscout 260,
/// xDrip4iOS 250, which would equal our high); 300 mg/dL keeps it distinct from high and is a
/// level where ketone checks are advised. Rate alarms are off by default (Dexcom), and when on
/// use 3 mg/dL/min (Dexcom's upper choice, fewer alarms from noise).
public struct GlucoseThresholds: Hashable, Sendable {
    /// The lowest urgent-low threshold accepted: 40 mg/dL is the bottom of the range CGMs report
    /// as a number (below it Dexcom says "LOW"), so a lower threshold could never fire and would
    /// disable urgent low in effect.
    public static let lowestUrgentLow = GlucoseConcentration(milligramsPerDeciliter: 40)

    /// Clamped to at least `lowestUrgentLow`: urgent low cannot be disabled, not even by a
    /// threshold no reading can reach.
    public var urgentLow: GlucoseConcentration {
        didSet { urgentLow = max(urgentLow, Self.lowestUrgentLow) }
    }
    /// Forecast horizon for "urgent low soon"; nil turns that alarm off.
    public var urgentLowSoonHorizon: Duration?
    public var low: GlucoseConcentration?
    public var high: GlucoseConcentration?
    public var urgentHigh: GlucoseConcentration?
    /// Falling at least this fast raises "falling fast"; nil is off.
    public var fallingFast: GlucoseRate?
    /// Rising at least this fast raises "rising fast"; nil is off.
    public var risingFast: GlucoseRate?

    public init(
        urgentLow: GlucoseConcentration = GlucoseConcentration(milligramsPerDeciliter: 55),
        urgentLowSoonHorizon: Duration? = .seconds(20 * 60),
        low: GlucoseConcentration? = GlucoseConcentration(milligramsPerDeciliter: 70),
        high: GlucoseConcentration? = GlucoseConcentration(milligramsPerDeciliter: 250),
        urgentHigh: GlucoseConcentration? = GlucoseConcentration(milligramsPerDeciliter: 300),
        fallingFast: GlucoseRate? = nil,
        risingFast: GlucoseRate? = nil
    ) {
        self.urgentLow = max(urgentLow, Self.lowestUrgentLow)
        self.urgentLowSoonHorizon = urgentLowSoonHorizon
        self.low = low
        self.high = high
        self.urgentHigh = urgentHigh
        self.fallingFast = fallingFast
        self.risingFast = risingFast
    }

    /// The field's defaults (see the type's comment).
    public static let standard = GlucoseThresholds()

    /// The rate Dexcom offers as its upper choice, for turning rate alarms on.
    public static let standardRate = GlucoseRate(milligramsPerDeciliterPerMinute: 3)
}

/// A time of day in whole minutes after local midnight, 0 ..< 1440.
public struct TimeOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let minutesAfterMidnight: Int

    /// Nil unless hour is 0...23 and minute 0...59.
    public init?(hour: Int, minute: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        minutesAfterMidnight = hour * 60 + minute
    }

    init(minutesAfterMidnight: Int) { self.minutesAfterMidnight = minutesAfterMidnight }

    public static func < (a: Self, b: Self) -> Bool { a.minutesAfterMidnight < b.minutesAfterMidnight }

    public var description: String {
        let h = minutesAfterMidnight / 60, m = minutesAfterMidnight % 60
        return "\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }
}

/// Thresholds that apply between `start` (inclusive) and `end` (exclusive) local time; the
/// span may cross midnight (a night profile 22:00-07:00).
public struct TimedProfile: Hashable, Sendable {
    public var start: TimeOfDay
    public var end: TimeOfDay
    public var thresholds: GlucoseThresholds

    public init(start: TimeOfDay, end: TimeOfDay, thresholds: GlucoseThresholds) {
        self.start = start
        self.end = end
        self.thresholds = thresholds
    }

    public func contains(_ time: TimeOfDay) -> Bool {
        start <= end ? (start <= time && time < end) : (time >= start || time < end)
    }
}
