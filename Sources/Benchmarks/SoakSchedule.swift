import Alarms
import Clocks
import Readings
import Simulator

/// The scripted day of `vigil-bench soak`, and the alarms it must raise.
///
/// Virtual time zero is local midnight (UTC, offset 0). Everything that must alarm happens in
/// the first two hours, at night, so the quick CI run (`--hours 2`) sees a low, both signal
/// losses and the fridge alarm; the afternoon high needs a run past 14:10. A shorter or longer
/// run truncates or extends the same day (after 24 h the script stays at its last value), and
/// an alarm is required only if the run lasts until its window closes.
///
///   00:07-00:47  the Dexcom out of range (40 min): signal loss ~20 min after the last reading,
///                cleared by the first session back, which backfills the readings it missed
///   00:20-00:50  the heart-rate strap out of range (30 min): its signal loss (watch = true)
///   00:55-01:40  the fridge at 9.5 °C (45 min above 8 °C): the fridge alarm after 30 min
///   00:50-02:05  glucose falls 110 -> 45 mg/dL, holds below 55 from 01:15 to 01:40 (~30 min),
///                and recovers: urgent low (with low and urgent-low-soon on the way down)
///   12:00-15:30  glucose rises to 285; above 250 from 12:50 to 13:55 (about an hour): high,
///                cleared at 14:05 (240 mg/dL, 5 below the threshold). The way down is
///                1.3 mg/dL/min: a first 24-hour run fell at 3.25 and, rightly, raised urgent
///                low soon at 130 mg/dL, predicting 55 within 20 minutes.
/// In between, glucose moves gently between 100 and 175 mg/dL, never near a threshold.
enum SoakSchedule {
    static func minutes(_ m: Int64) -> Duration { .seconds(m * 60) }

    /// Local midnight, 2027-01-14T00:00:00Z: a believable wall clock for the alarms and history.
    static let wallStart = WallClockTime(secondsSinceEpoch: 1_799_971_200)

    static let dexcomOutage = minutes(7)..<minutes(47)
    static let heartRateOutage = minutes(20)..<minutes(50)
    static let fridgeExcursion = TemperatureScript.Excursion(start: minutes(55), duration: minutes(45), hundredths: 950)

    /// (minute of the day, mg/dL).
    private static let glucoseKnots: [(minute: Int64, milligramsPerDeciliter: Double)] = [
        (0, 110), (50, 110), (75, 45), (100, 45), (125, 110),
        (7 * 60, 100), (8 * 60 + 30, 170), (11 * 60, 120), (12 * 60, 120),
        (12 * 60 + 50, 260), (13 * 60 + 20, 285), (13 * 60 + 50, 260), (15 * 60 + 30, 130),
        (18 * 60, 110), (19 * 60 + 30, 175), (22 * 60, 120), (24 * 60, 110),
    ]
    static let glucose = GlucoseScript(glucoseKnots.map { GlucoseScript.Knot(at: minutes($0.minute), milligramsPerDeciliter: $0.milligramsPerDeciliter) })

    static let fridge = TemperatureScript(excursions: [fridgeExcursion])

    /// Alarm thresholds of the soak's configuration (the defaults, see `SoakConfiguration`).
    static let urgentLow = 55.0, urgentLowClears = 60.0, high = 250.0, highClears = 245.0

    /// Dexcom reading times (virtual time since zero) in `0...end`, every 5 minutes.
    static func readingTimes(through end: Duration) -> [Duration] {
        stride(from: Int64(0), through: Int64(end.seconds) / 300, by: 1).map { .seconds($0 * 300) }
    }

    /// One alarm the day must raise within `raised`, and clear within `cleared`.
    struct ExpectedAlarm {
        var name: String
        var kind: AlarmKind
        var raised: ClosedRange<Duration>
        var cleared: ClosedRange<Duration>
    }

    /// Alarm kinds allowed (not required) in a window: the companions of an expected alarm
    /// whose exact timing depends on prediction (urgent low soon) or on a threshold the curve
    /// only brushes on its way (low).
    struct AllowedAlarm {
        var kind: AlarmKind
        var within: ClosedRange<Duration>
    }

    /// The first reading time in `times` at which `condition` holds of the scripted glucose.
    static func firstReading(in times: [Duration], after start: Duration, where condition: (Double) -> Bool) -> Duration? {
        times.first { $0 >= start && condition(glucose.milligramsPerDeciliter(at: $0)) }
    }

    /// The alarms of the whole day, whether the run reaches them or not; windows allow for the
    /// Dexcom's 5-minute sessions drifting a little later each cycle, and for reconnecting.
    static func expectedAlarms(dexcom: DeviceID, heartRate: DeviceID, fridge: DeviceID) -> [ExpectedAlarm] {
        let times = readingTimes(through: minutes(24 * 60))
        var alarms: [ExpectedAlarm] = [
            // Signal loss counts from the last reading received: the session before the
            // outage (at most 5 minutes before it) plus 20 minutes.
            ExpectedAlarm(name: "Dexcom signal loss", kind: .signalLoss(dexcom),
                          raised: dexcomOutage.lowerBound + minutes(14)...dexcomOutage.lowerBound + minutes(21),
                          cleared: dexcomOutage.upperBound...dexcomOutage.upperBound + minutes(6)),
            ExpectedAlarm(name: "heart-rate signal loss", kind: .signalLoss(heartRate),
                          raised: heartRateOutage.lowerBound + minutes(19)...heartRateOutage.lowerBound + minutes(21),
                          cleared: heartRateOutage.upperBound...heartRateOutage.upperBound + minutes(2)),
            ExpectedAlarm(name: "fridge too warm", kind: .device(.temperatureHigh, fridge),
                          raised: fridgeExcursion.start + minutes(30)...fridgeExcursion.start + minutes(31),
                          cleared: fridgeExcursion.end...fridgeExcursion.end + minutes(2)),
        ]
        // A glucose alarm is raised by the first reading past its threshold and cleared by the
        // first back inside it by the clearing margin; the reading arrives up to 6 minutes later.
        func glucoseAlarm(_ name: String, _ kind: AlarmKind, from start: Duration, raise: (Double) -> Bool, clear: (Double) -> Bool) {
            guard let raisedAt = firstReading(in: times, after: start, where: raise),
                  let clearedAt = firstReading(in: times, after: raisedAt, where: clear) else { return }
            alarms.append(ExpectedAlarm(name: name, kind: kind, raised: raisedAt...raisedAt + minutes(6),
                                        cleared: clearedAt...clearedAt + minutes(6)))
        }
        glucoseAlarm("urgent low", .urgentLow, from: minutes(50), raise: { $0 < urgentLow }, clear: { $0 >= urgentLowClears })
        glucoseAlarm("high", .glucose(.high), from: minutes(12 * 60), raise: { $0 > high }, clear: { $0 <= highClears })
        return alarms
    }

    /// Low and urgent low soon come and go with the night's low (its fall starts at 00:50).
    static func allowedAlarms() -> [AllowedAlarm] {
        [AllowedAlarm(kind: .glucose(.low), within: minutes(50)...minutes(135)),
         AllowedAlarm(kind: .glucose(.urgentLowSoon), within: minutes(50)...minutes(135))]
    }
}
