import Clocks
import Readings

/// The alarm engine: a sans-IO value fed inputs with `now`, reporting events for history, the
/// active alarms, and the pattern to play.
///
/// It never reads a clock: the shell calls `receive(_:at:)` for inputs and
/// `handleDeadline(at:)` when `nextDeadline` passes, then drains `takeEvents()` and renders
/// `pattern`.
public struct AlarmEngine: Sendable {
    public enum Input: Hashable, Sendable {
        /// A glucose reading (live or backfilled); it also counts as a reading from its device.
        case glucose(GlucoseSample)
        /// A reading from a device arrived, measured at `measuredAt`: its signal-loss timer runs
        /// from then. A reading measured long ago (received again, or from a transmitter's
        /// memory) is not the device being heard now, and keeps no signal-loss alarm away.
        case readingReceived(DeviceID, measuredAt: MonotonicInstant)
        case faultRaised(ApplianceFault)
        case faultCleared(ApplianceFault)
        /// Snooze one active alarm; the duration is clamped to 1 min ... `kind.maximumSnooze`.
        case snooze(AlarmKind, for: Duration)
        /// Snooze every alarm `AlarmKind.isCoveredBySnoozeAll`, active now or raised until then.
        case snoozeAll(for: Duration)
        /// Acknowledge one alarm, or (nil) the one the buzzer is playing.
        case acknowledge(AlarmKind?)
        /// A glucose sensor's session phase and/or age, as its transmitter reported them now.
        case sensor(DeviceID, phase: SensorPhase?, age: Duration?)
        /// A transmitter's or bridge's battery, as reported now.
        case battery(DeviceID, BatteryReport)
        /// A heart-rate reading; `.notDetected` contact (a strap off the body) is no data.
        case heartRate(DeviceID, BeatsPerMinute, contact: SkinContact, measuredAt: MonotonicInstant)
        /// A fridge thermometer's reading.
        case temperature(DeviceID, Temperature, measuredAt: MonotonicInstant)
    }

    public let configuration: AlarmConfiguration
    public private(set) var state: State
    private var events: [AlarmEvent] = []
    /// Recent glucose, oldest first (kept for the trend window only).
    private var glucose: [GlucoseSample] = []
    /// When each device was last heard; a device heard once is watched from then on.
    var lastHeard: [DeviceID: MonotonicInstant] = [:]
    /// Watched devices not heard since start: their `lastHeard` is the start, a grace of one
    /// whole interval, which their first reading replaces even when it was measured before
    /// the start (a follower's newest reading 9.5 minutes old is 30 s from signal loss, not 10
    /// minutes; docs/followers.md).
    var awaitingFirstReading: Set<DeviceID> = []
    /// Memory of the device rules (`AlarmEngine+DeviceRules.swift`); like the glucose window it
    /// is not persisted: after a restart, a sustained condition must be seen again in full.
    var deviceMemory = DeviceMemory()

    /// A fresh engine at `now`, or one restored from persisted `state` (see `State`). Signal-loss
    /// timers of watched devices start at `now`.
    public init(configuration: AlarmConfiguration, now: MonotonicInstant, restoring state: State = State()) {
        self.configuration = configuration
        self.state = state
        for device in configuration.watchedDevices { lastHeard[device] = now }
        awaitingFirstReading = Set(configuration.watchedDevices)
    }

    // MARK: Outputs

    /// Active alarms, sounding or not, highest priority first.
    public var activeAlarms: [ActiveAlarm] {
        state.alarms.values.sorted {
            ($0.kind.priority, $1.raisedAt, $1.kind) > ($1.kind.priority, $0.raisedAt, $0.kind)
        }
    }

    /// The alarm the buzzer plays: the highest priority sounding alarm, escalated first, then
    /// the oldest.
    public var playing: ActiveAlarm? {
        activeAlarms.filter(\.isSounding).max {
            ($0.kind.priority, $0.isEscalated ? 1 : 0, $1.raisedAt) < ($1.kind.priority, $1.isEscalated ? 1 : 0, $0.raisedAt)
        }
    }

    public var pattern: AlarmPattern {
        if let playing {
            return AlarmPattern(buzzer: .bursts(playing.kind.priority, escalated: playing.isEscalated, kind: playing.kind),
                                led: .alarm(playing.kind.priority))
        }
        let kinds = state.alarms.keys
        if kinds.contains(where: { if case .fault = $0 { true } else { false } }) {
            return AlarmPattern(buzzer: .silent, led: .fault)
        }
        if kinds.contains(where: { if case .signalLoss = $0 { true } else { false } }) {
            return AlarmPattern(buzzer: .silent, led: .searching)
        }
        return AlarmPattern(buzzer: .silent, led: kinds.isEmpty ? .heartbeat : .snoozed)
    }

    public mutating func takeEvents() -> [AlarmEvent] {
        defer { events = [] }
        return events
    }

    public var nextDeadline: MonotonicInstant? {
        var deadlines: [MonotonicInstant?] = state.alarms.values.map(\.status.deadline)
        deadlines.append(state.snoozeAllUntil)
        for (device, heard) in lastHeard where state.alarms[.signalLoss(device)] == nil && !signalLossIsSuppressed(for: device) {
            deadlines.append(heard + configuration.signalLossAfter)
        }
        return earliest(deadlines)
    }

    // MARK: Inputs

    public mutating func receive(_ input: Input, at now: MonotonicInstant) {
        switch input {
        case let .glucose(sample):
            heard(sample.device, measuredAt: sample.measuredAt, at: now)
            receiveGlucose(sample, at: now)
        case let .readingReceived(device, measuredAt):
            heard(device, measuredAt: measuredAt, at: now)
        case let .faultRaised(fault):
            raise(.fault(fault), at: now)
        case let .faultCleared(fault):
            clear(.fault(fault), at: now)
        case let .snooze(kind, duration):
            guard let alarm = state.alarms[kind] else { return }
            let bounded = min(max(duration, .seconds(60)), kind.maximumSnooze)
            let until = max(now + bounded, alarm.status.snoozedUntil ?? now + bounded)
            state.alarms[kind]?.status = .snoozed(until: until)
            events.append(AlarmEvent(time: now, kind: kind, change: .snoozed(until: until)))
        case let .snoozeAll(duration):
            guard duration > .zero else { return }
            let until = now + min(duration, configuration.maximumSnoozeAll)
            state.snoozeAllUntil = max(until, state.snoozeAllUntil ?? until)
            for alarm in activeAlarms where alarm.kind.isCoveredBySnoozeAll {
                if let current = alarm.status.snoozedUntil, current >= until { continue }
                // Already silent: a reminder due meanwhile waits for the end (handleDeadline).
                if case .quiet = alarm.status { continue }
                state.alarms[alarm.kind]?.status = .snoozed(until: until)
                events.append(AlarmEvent(time: now, kind: alarm.kind, change: .snoozed(until: until)))
            }
        case let .acknowledge(kind):
            guard let alarm = kind.flatMap({ state.alarms[$0] }) ?? (kind == nil ? playing : nil),
                  alarm.isSounding else { return }
            let until = now + alarm.kind.acknowledgementInterval
            state.alarms[alarm.kind]?.status = .snoozed(until: until)
            events.append(AlarmEvent(time: now, kind: alarm.kind, change: .acknowledged(until: until)))
        case let .sensor(device, phase, age):
            receiveSensor(device, phase: phase, age: age, at: now)
        case let .battery(device, level):
            receiveBattery(device, level, at: now)
        case let .heartRate(device, rate, contact, measuredAt):
            receiveHeartRate(device, rate, contact: contact, measuredAt: measuredAt, at: now)
        case let .temperature(device, temperature, measuredAt):
            receiveTemperature(device, temperature, measuredAt: measuredAt, at: now)
        }
    }

    public mutating func handleDeadline(at now: MonotonicInstant) {
        for alarm in activeAlarms {
            switch alarm.status {
            case let .sounding(escalatesAt) where escalatesAt <= now && alarm.kind.isInformational:
                // Its chirp is over: informational alarms go quiet instead of escalating. The
                // reminder counts from when the chirp began, so it comes at the same time each day.
                let began = escalatesAt - AlarmKind.informationalChirp
                state.alarms[alarm.kind]?.status = .quiet(remindsAt: alarm.kind.reminderInterval.map { began + $0 })
            case let .sounding(escalatesAt) where escalatesAt <= now:
                state.alarms[alarm.kind]?.status = .escalated
                events.append(AlarmEvent(time: now, kind: alarm.kind, change: .escalated))
            case let .quiet(remindsAt?) where remindsAt <= now:
                if alarm.kind.isCoveredBySnoozeAll, let until = state.snoozeAllUntil, until > now {
                    state.alarms[alarm.kind]?.status = .quiet(remindsAt: until)
                } else {
                    let escalatesAt = now + soundingTime(of: alarm.kind)
                    state.alarms[alarm.kind]?.status = .sounding(escalatesAt: escalatesAt)
                    events.append(AlarmEvent(time: now, kind: alarm.kind, change: .reRaised))
                }
            case let .snoozed(until) where until <= now:
                if case .glucose = alarm.kind, !glucoseIsFresh(at: now) {
                    // Stale data never re-raises a glucose alarm: wait for a fresh reading.
                    state.alarms[alarm.kind]?.status = .awaitingFreshData
                } else {
                    let escalatesAt = now + soundingTime(of: alarm.kind)
                    state.alarms[alarm.kind]?.status = .sounding(escalatesAt: escalatesAt)
                    events.append(AlarmEvent(time: now, kind: alarm.kind, change: .reRaised))
                }
            default:
                break
            }
        }
        if let until = state.snoozeAllUntil, until <= now { state.snoozeAllUntil = nil }
        for (device, heard) in lastHeard.sorted(by: { $0.key < $1.key })
        where heard + configuration.signalLossAfter <= now && !signalLossIsSuppressed(for: device) {
            raise(.signalLoss(device), at: now)
        }
    }

    // MARK: Rules

    /// The device was heard with a reading measured at `measuredAt`: the signal-loss timer runs
    /// from the newest measurement, never from when an old one arrived (stale rules apply to a
    /// reading's own time).
    mutating func heard(_ device: DeviceID, measuredAt: MonotonicInstant, at now: MonotonicInstant) {
        let measured = min(measuredAt, now)
        if awaitingFirstReading.remove(device) == nil, let last = lastHeard[device], last >= measured { return }
        lastHeard[device] = measured
        if now - measured < configuration.signalLossAfter { clear(.signalLoss(device), at: now) }
    }

    private func glucoseIsFresh(at now: MonotonicInstant) -> Bool {
        guard let latest = glucose.last else { return false }
        return now - latest.measuredAt <= configuration.glucoseFreshFor
    }

    private mutating func receiveGlucose(_ sample: GlucoseSample, at now: MonotonicInstant) {
        // A reading the engine already holds, received again with its time estimated anew (the
        // same value within `Reading.sameReadingWindow`), is not new data: it changes nothing.
        guard !glucose.contains(where: {
            $0.measuredAt == sample.measuredAt
                || ($0.device == sample.device && $0.concentration == sample.concentration
                    && abs(($0.measuredAt - sample.measuredAt).seconds) <= Reading.sameReadingWindow.seconds)
        }) else { return }
        glucose.append(sample)
        glucose.sort { $0.measuredAt < $1.measuredAt }
        if let latest = glucose.last?.measuredAt {
            glucose.removeAll { latest - $0.measuredAt > GlucoseTrend.window }
        }
        // Backfill, or a reading older than the latest, only feeds the trend: stale data never
        // raises, re-raises or clears a glucose alarm.
        guard glucose.last == sample, now - sample.measuredAt <= configuration.glucoseFreshFor else { return }
        glucoseArrived(from: sample.device, at: now)

        let holding = conditions(for: sample)
        // Clear first, so "low" clears before "urgent low" raises in the history.
        for alarm in GlucoseAlarm.allCases where !holding.contains(alarm) {
            clear(.glucose(alarm), at: now)
        }
        for alarm in GlucoseAlarm.allCases where holding.contains(alarm) {
            let kind = AlarmKind.glucose(alarm)
            if state.alarms[kind]?.status == .awaitingFreshData {
                state.alarms[kind]?.status = .sounding(escalatesAt: now + configuration.escalateAfter)
                events.append(AlarmEvent(time: now, kind: kind, change: .reRaised))
            } else {
                raise(kind, at: now)
            }
        }
    }

    /// Which glucose alarms hold for the latest fresh reading.
    private func conditions(for sample: GlucoseSample) -> Set<GlucoseAlarm> {
        let limits = configuration.thresholds(at: sample.wallClockTime)
        let value = sample.concentration.milligramsPerDeciliter
        let margin = configuration.clearingMargin.milligramsPerDeciliter
        func active(_ alarm: GlucoseAlarm) -> Bool { state.alarms[.glucose(alarm)] != nil }
        func below(_ threshold: GlucoseConcentration?, _ alarm: GlucoseAlarm) -> Bool {
            guard let t = threshold?.milligramsPerDeciliter else { return false }
            return value <= (active(alarm) ? t + margin : t)
        }
        func above(_ threshold: GlucoseConcentration?, _ alarm: GlucoseAlarm) -> Bool {
            guard let t = threshold?.milligramsPerDeciliter else { return false }
            return value >= (active(alarm) ? t - margin : t)
        }
        var holding: Set<GlucoseAlarm> = []
        let urgentLow = below(limits.urgentLow, .urgentLow)
        if urgentLow { holding.insert(.urgentLow) } else if below(limits.low, .low) { holding.insert(.low) }
        if above(limits.urgentHigh, .urgentHigh) { holding.insert(.urgentHigh) } else if above(limits.high, .high) {
            holding.insert(.high)
        }
        let trend = GlucoseTrend(glucose.map { (time: $0.measuredAt, value: $0.concentration) })
        if let trend {
            let rate = trend.rate
            if let horizon = limits.urgentLowSoonHorizon, !urgentLow, rate.milligramsPerDeciliterPerMinute < 0,
               trend.forecast(horizon) <= limits.urgentLow {
                holding.insert(.urgentLowSoon)
            }
            if let fast = limits.fallingFast, rate.milligramsPerDeciliterPerMinute <= -fast.milligramsPerDeciliterPerMinute {
                holding.insert(.fallingFast)
            }
            if let fast = limits.risingFast, rate >= fast { holding.insert(.risingFast) }
        }
        return holding
    }

    /// Raises `kind` unless already active. During "snooze all" a covered alarm is raised
    /// snoozed, so the history still records it.
    mutating func raise(_ kind: AlarmKind, at now: MonotonicInstant) {
        guard state.alarms[kind] == nil else { return }
        state.alarms[kind] = ActiveAlarm(kind: kind, raisedAt: now,
                                         status: .sounding(escalatesAt: now + soundingTime(of: kind)))
        events.append(AlarmEvent(time: now, kind: kind, change: .raised(kind.priority)))
        if kind.isCoveredBySnoozeAll, let until = state.snoozeAllUntil, until > now {
            state.alarms[kind]?.status = .snoozed(until: until)
            events.append(AlarmEvent(time: now, kind: kind, change: .snoozed(until: until)))
        }
    }

    /// How long a raise or re-raise sounds before it escalates, or for an informational alarm,
    /// before it goes quiet.
    private func soundingTime(of kind: AlarmKind) -> Duration {
        kind.isInformational ? AlarmKind.informationalChirp : configuration.escalateAfter
    }

    mutating func clear(_ kind: AlarmKind, at now: MonotonicInstant) {
        guard state.alarms.removeValue(forKey: kind) != nil else { return }
        events.append(AlarmEvent(time: now, kind: kind, change: .cleared))
    }
}
