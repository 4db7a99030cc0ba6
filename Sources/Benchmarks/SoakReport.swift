import Alarms
import App
import Clocks
import History
import Readings
import Simulator

/// The soak's verdicts, from the hourly samples, the history and what went on the air.
///
/// "Expected", precisely:
/// - Dexcom glucose: one reading every 5 minutes from the session start (2 h before virtual
///   zero: the first connection backfills them) to 6 minutes before the end of the run (a
///   reading is fetched at the next 5-minute session), including those taken while the
///   transmitter was out of range, which only the backfill brings. Each stored reading must sit
///   on a reading time (±2 s) and carry the value the script gives that time; none twice.
/// - Heart rate: one row per Heart Rate Measurement notification the strap put on the air
///   (`SoakAirCount`). Separately, the strap's silences must be explained: the first
///   connection (within 60 s of the start) and its out-of-range stretch (ending within 60 s
///   of its return); any other silence over 5 s fails.
/// - Fridge: one temperature and one humidity row per measurement heard (`SoakAirCount`:
///   a repeat of the same measurement is not a new one).
/// Other kinds (RR intervals, energy, batteries) are listed for information.
struct SoakReport {
    struct ReadingCheck {
        var device: String
        var kind: String
        var stored: Int
        /// nil: listed for information only.
        var expected: Int?
        var passed: Bool
        var note: String
    }

    struct AlarmCheck {
        var name: String
        var kind: AlarmKind
        var raisedAt: Duration?
        var clearedAt: Duration?
        var raiseRequired: Bool
        var clearRequired: Bool
        var passed: Bool { (!raiseRequired || raisedAt != nil) && (!clearRequired || clearedAt != nil) }
    }

    let samples: [SoakBenchmark.HourSample]
    let hours: Int
    let wall: Duration
    var memoryFromHour = 0, memoryToHour = 0, memoryGrowth = 0
    var memoryPassed = false
    var fileDescriptorsPassed = false
    var readings: [ReadingCheck] = []
    var alarms: [AlarmCheck] = []
    var unexpectedAlarms: [String] = []
    var problems: [String]
    var airFigures: [(String, Int)] = []

    var readingsPassed: Bool { readings.allSatisfy(\.passed) }
    var alarmsPassed: Bool { alarms.allSatisfy(\.passed) && unexpectedAlarms.isEmpty }
    var passed: Bool {
        samples.count == hours && memoryPassed && fileDescriptorsPassed && readingsPassed && alarmsPassed
    }

    init(rig: SoakRig, samples: [SoakBenchmark.HourSample], hours: Int, end: MonotonicInstant, wall: Duration) {
        self.samples = samples
        self.hours = hours
        self.wall = wall
        problems = rig.problems
        if rig.commitFailures > 0 { problems.append("\(rig.commitFailures) history commits failed") }
        checkResources()
        let stored: [RecordedReading] = Array(rig.history.readings())
        if let error = rig.history.readings().error { problems.append("reading the history: \(error)") }
        checkGlucose(stored, rig: rig, end: end)
        checkHeartRate(stored, air: rig.air, end: end)
        checkFridge(stored, air: rig.air)
        listTheRest(stored)
        checkAlarms(rig: rig, end: end)
        airFigures = [("heart-rate notifications on the air", rig.air.heartRateNotifications),
                      ("fridge measurements heard", rig.air.thermometerMeasurements),
                      ("advertising reports", rig.air.advertisingReports),
                      ("alarm state writes", rig.alarmStateWrites)]
    }

    private mutating func checkResources() {
        guard let last = samples.last else { return }
        let from = samples.first { $0.hour == (hours >= 3 ? 2 : 1) } ?? last
        memoryFromHour = from.hour
        memoryToHour = last.hour
        memoryGrowth = last.residentBytes - from.residentBytes
        memoryPassed = from.residentBytes > 0 && memoryGrowth < SoakBenchmark.growthLimitBytes
        let first = samples[0].openFileDescriptors
        fileDescriptorsPassed = first > 0 && samples.allSatisfy { $0.openFileDescriptors == first }
    }

    static func virtualTime(_ wall: WallClockTime) -> Duration { wall - SoakSchedule.wallStart }

    private mutating func checkGlucose(_ stored: [RecordedReading], rig: SoakRig, end: MonotonicInstant) {
        let sessionAge = Int64(SoakRig.sessionAge)
        var slots: Set<Int64> = [], offSchedule = 0, wrongValue = 0, duplicates = 0, count = 0
        for reading in stored where reading.device == SoakConfiguration.dexcom {
            guard case let .glucose(concentration, _) = reading.value else { continue }
            count += 1
            let seconds = Self.virtualTime(reading.wallTime).seconds + Double(sessionAge)
            let slot = Int64((seconds / 300).rounded())
            guard abs(seconds - Double(slot * 300)) <= 2, slot >= 0 else {
                offSchedule += 1
                continue
            }
            if !slots.insert(slot).inserted { duplicates += 1 }
            let expected = rig.dexcom.glucose(at: rig.dexcom.sessionStart + UInt32(slot) * 300).milligramsPerDeciliter
            if concentration.roundedMilligramsPerDeciliter != Int(expected) { wrongValue += 1 }
        }
        let lastRequired = ((end - .zero) - .seconds(360)).seconds
        let expectedSlots = (0...Int64((lastRequired + Double(sessionAge)) / 300)).filter { Double($0 * 300 - sessionAge) <= lastRequired }
        let missing = expectedSlots.filter { !slots.contains($0) }
        var notes: [String] = []
        if !missing.isEmpty {
            notes.append("missing \(missing.count), e.g. at " + missing.prefix(5).map { Self.clock(.seconds($0 * 300 - sessionAge)) }.joined(separator: ", "))
        }
        if offSchedule > 0 { notes.append("\(offSchedule) off the 5-minute schedule") }
        if wrongValue > 0 { notes.append("\(wrongValue) with a value the script did not send") }
        if duplicates > 0 { notes.append("\(duplicates) stored twice") }
        let extra = count - expectedSlots.count
        if extra > 0, notes.isEmpty { notes.append("\(extra) from the last 6 minutes") }
        readings.append(ReadingCheck(device: SoakConfiguration.dexcom.rawValue, kind: Reading.Kind.glucose.rawValue, stored: count,
                                     expected: expectedSlots.count, passed: missing.isEmpty && offSchedule == 0 && wrongValue == 0 && duplicates == 0,
                                     note: notes.isEmpty ? "every reading on schedule with the scripted value, backfill included" : notes.joined(separator: "; ")))
    }

    private mutating func checkHeartRate(_ stored: [RecordedReading], air: SoakAirCount, end: MonotonicInstant) {
        let count = stored.filter { $0.device == SoakConfiguration.heartRate && $0.kind == .heartRate }.count
        // Silences: before the first notification, between two, and after the last.
        var gaps = air.heartRateGaps
        gaps.insert(.zero..<(air.firstHeartRateNotification ?? end), at: 0)
        if let open = air.openGap(at: end) { gaps.append(open) }
        let outage = (MonotonicInstant.zero + SoakSchedule.heartRateOutage.lowerBound)..<(.zero + SoakSchedule.heartRateOutage.upperBound)
        let unexplained = gaps.filter { gap in
            if gap.lowerBound == MonotonicInstant.zero { return gap.upperBound - .zero > .seconds(60) }
            let overlapsOutage = gap.overlaps(outage)
            let endsInTime = gap.upperBound == end || gap.upperBound <= outage.upperBound + .seconds(60)
            return !(overlapsOutage && gap.lowerBound >= outage.lowerBound - .seconds(5) && endsInTime)
        }
        var note = "= notifications on the air; silences: " + gaps.map { "\(Self.clock($0.lowerBound - .zero))-\(Self.clock($0.upperBound - .zero))" }.joined(separator: ", ")
        if !unexplained.isEmpty { note += "; UNEXPLAINED: " + unexplained.map { "\(Self.clock($0.lowerBound - .zero))-\(Self.clock($0.upperBound - .zero))" }.joined(separator: ", ") }
        readings.append(ReadingCheck(device: SoakConfiguration.heartRate.rawValue, kind: Reading.Kind.heartRate.rawValue, stored: count,
                                     expected: air.heartRateNotifications, passed: count == air.heartRateNotifications && unexplained.isEmpty,
                                     note: note))
    }

    private mutating func checkFridge(_ stored: [RecordedReading], air: SoakAirCount) {
        for kind in [Reading.Kind.temperature, .humidity] {
            let count = stored.filter { $0.device == SoakConfiguration.fridge && $0.kind == kind }.count
            readings.append(ReadingCheck(device: SoakConfiguration.fridge.rawValue, kind: kind.rawValue, stored: count,
                                         expected: air.thermometerMeasurements, passed: count == air.thermometerMeasurements,
                                         note: "= distinct measurements heard"))
        }
    }

    private mutating func listTheRest(_ stored: [RecordedReading]) {
        let checked = Set(readings.map { "\($0.device) \($0.kind)" })
        var counts: [String: Int] = [:]
        for reading in stored { counts["\(reading.device.rawValue) \(reading.kind.rawValue)", default: 0] += 1 }
        for (key, count) in counts.sorted(by: { $0.key < $1.key }) where !checked.contains(key) {
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            readings.append(ReadingCheck(device: parts[0], kind: parts[1], stored: count, expected: nil, passed: true, note: "information"))
        }
    }

    private mutating func checkAlarms(rig: SoakRig, end: MonotonicInstant) {
        let recorded: [RecordedAlarmEvent]
        do { recorded = try rig.history.alarmEvents() } catch {
            problems.append("reading the alarm events: \(error)")
            unexpectedAlarms.append("the alarm events could not be read from the history")
            return
        }
        if recorded.count != rig.alarmEvents.count {
            unexpectedAlarms.append("the history holds \(recorded.count) alarm events, the face reported \(rig.alarmEvents.count)")
        }
        let runLength = end - MonotonicInstant.zero
        let expected = SoakSchedule.expectedAlarms(dexcom: SoakConfiguration.dexcom, heartRate: SoakConfiguration.heartRate,
                                                   fridge: SoakConfiguration.fridge)
        func first(_ kind: AlarmKind, _ change: (RecordedAlarmEvent.Change) -> Bool, in window: ClosedRange<Duration>) -> Duration? {
            recorded.first { $0.kind == kind && change($0.change) && window.contains(Self.virtualTime($0.wallTime)) }
                .map { Self.virtualTime($0.wallTime) }
        }
        func isRaise(_ change: RecordedAlarmEvent.Change) -> Bool {
            switch change {
            case .raised, .reRaised: true
            default: false
            }
        }
        for alarm in expected {
            alarms.append(AlarmCheck(name: alarm.name, kind: alarm.kind, raisedAt: first(alarm.kind, isRaise, in: alarm.raised),
                                     clearedAt: first(alarm.kind, { $0 == .cleared }, in: alarm.cleared),
                                     raiseRequired: runLength >= alarm.raised.upperBound, clearRequired: runLength >= alarm.cleared.upperBound))
        }
        let allowed = SoakSchedule.allowedAlarms()
        for event in recorded where isRaise(event.change) {
            let t = Self.virtualTime(event.wallTime)
            let explained = expected.contains { $0.kind == event.kind && $0.raised.contains(t) }
                || allowed.contains { $0.kind == event.kind && $0.within.contains(t) }
            if !explained { unexpectedAlarms.append("\(event.kind) \(event.change) at \(Self.clock(t))") }
        }
    }

    /// Virtual time as the day's clock: "01:15:00".
    static func clock(_ d: Duration) -> String {
        let total = Int64(d.seconds.rounded(.down))
        let sign = total < 0 ? "-" : ""
        let s = abs(total)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(sign)\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }
}
