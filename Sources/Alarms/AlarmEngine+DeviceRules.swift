import Clocks
import Readings

/// The rules for each device's own alarms: sensor life,
/// battery, heart rate and fridge temperature. Glucose rules stay in `AlarmEngine.swift`.
extension AlarmEngine {
    /// What the device rules remember between inputs.
    struct DeviceMemory: Sendable {
        /// The last phase each sensor reported (an ended sensor is not "expiring").
        var sensorPhases: [DeviceID: SensorPhase] = [:]
        /// When the latest reading of each quantity was measured: older ones arrive out of
        /// order and say nothing about now.
        var latest: [Measured: MonotonicInstant] = [:]
        /// When an unbroken run of out-of-range readings began, per condition.
        var outOfRangeSince: [Condition: MonotonicInstant] = [:]
    }

    enum Quantity: Hashable, Sendable { case heartRate, temperature }

    struct Measured: Hashable, Sendable {
        var device: DeviceID
        var quantity: Quantity
    }

    /// One way a reading can be out of range; freezing is its own run because it sounds sooner.
    enum Side: Hashable, Sendable { case below, above, freezing }

    struct Condition: Hashable, Sendable {
        var measured: Measured
        var side: Side
    }

    /// One limit checked against one reading.
    struct RangeCheck {
        var kind: AlarmKind
        var side: Side
        /// Beyond the limit: the reading counts towards raising.
        var isOutside: Bool
        /// Not yet back inside by the clearing margin: a raised alarm holds.
        var holdsRaised: Bool
        var sustainedFor: Duration
    }

    // MARK: Sensor life

    mutating func receiveSensor(_ device: DeviceID, phase: SensorPhase?, age: Duration?, at now: MonotonicInstant) {
        if let phase {
            deviceMemory.sensorPhases[device] = phase
            switch phase {
            case .warmingUp:
                sensorEndedStops(for: device, at: now)
                clear(.device(.sensorExpiring, device), at: now)
                raise(.device(.sensorWarmUp, device), at: now)
                // No glucose comes during a warm-up, by design: the transmitter's report is the
                // sign of life of a watched device. Signal loss still sounds if the reports stop
                // too, because the quiet warm-up alarm would otherwise hide a dead transmitter.
                if lastHeard[device] != nil { heard(device, measuredAt: now, at: now) }
            case .running:
                clear(.device(.sensorWarmUp, device), at: now)
                sensorEndedStops(for: device, at: now)
            case .ended:
                clear(.device(.sensorWarmUp, device), at: now)
                clear(.device(.sensorExpiring, device), at: now)
                // "Sensor ended" says everything signal loss would (no glucose from this
                // device) and more (what to do), and it is bounded the same way: so signal
                // loss is cleared and held off while it stands, rather than sounding twice.
                clear(.signalLoss(device), at: now)
                raise(.device(.sensorEnded, device), at: now)
            }
        }
        let settings = configuration.settings(for: device)
        if let age, let life = settings.sensorLife, deviceMemory.sensorPhases[device] != .ended {
            if age + settings.sensorExpiringWarning >= life {
                raise(.device(.sensorExpiring, device), at: now)
            } else {
                clear(.device(.sensorExpiring, device), at: now)  // a young sensor: a new one
            }
        }
    }

    /// A fresh glucose reading proves the sensor is running, whatever was said before.
    mutating func glucoseArrived(from device: DeviceID, at now: MonotonicInstant) {
        deviceMemory.sensorPhases[device] = .running
        clear(.device(.sensorWarmUp, device), at: now)
        sensorEndedStops(for: device, at: now)
    }

    /// Signal loss for a device is held off while its sensor has ended (see `receiveSensor`).
    func signalLossIsSuppressed(for device: DeviceID) -> Bool {
        state.alarms[.device(.sensorEnded, device)] != nil
    }

    /// Clears "sensor ended" and restarts the device's signal-loss timer from now: the new
    /// sensor gets the full interval to deliver, not the time since the old one stopped.
    private mutating func sensorEndedStops(for device: DeviceID, at now: MonotonicInstant) {
        guard state.alarms[.device(.sensorEnded, device)] != nil else { return }
        clear(.device(.sensorEnded, device), at: now)
        if lastHeard[device] != nil { lastHeard[device] = now }
    }

    // MARK: Battery

    /// Below the limit raises; only `margin` above it clears, so a level flapping 19/21 % on
    /// a 20 % limit raises once. With `batteryLowBelow` nil the device has no battery alarm.
    mutating func receiveBattery(_ device: DeviceID, _ level: BatteryReport, at now: MonotonicInstant) {
        let settings = configuration.settings(for: device)
        guard let percentLimit = settings.batteryLowBelow else { return }
        let kind = AlarmKind.device(.batteryLow, device)
        let low: Bool?
        switch level {
        case let .percent(percent):
            let value = Int(percent.value), limit = Int(percentLimit.value)
            low = value < limit ? true : value >= limit + DeviceAlarmSettings.batteryClearingMargin ? false : nil
        case let .voltage(millivolts):
            guard let limit = settings.batteryLowBelowMillivolts else { return }
            low = millivolts < limit ? true
                : millivolts >= limit + DeviceAlarmSettings.batteryClearingMarginMillivolts ? false : nil
        case let .deviceSaysLow(says):
            low = says
        }
        switch low {
        case true?: raise(kind, at: now)
        case false?: clear(kind, at: now)
        case nil: break  // inside the hysteresis band: whatever stands, stands
        }
    }

    // MARK: Heart rate and temperature

    mutating func receiveHeartRate(_ device: DeviceID, _ rate: BeatsPerMinute, contact: SkinContact,
                                   measuredAt: MonotonicInstant, at now: MonotonicInstant) {
        guard let limits = configuration.settings(for: device).heartRate else { return }
        let measured = Measured(device: device, quantity: .heartRate)
        guard contact != .notDetected else {
            // A strap off the body reports noise: neither evidence of a condition nor of its
            // end. It breaks a run, so a run must be seen on the body from start to finish.
            deviceMemory.outOfRangeSince = deviceMemory.outOfRangeSince.filter { $0.key.measured != measured }
            return
        }
        let value = Int(rate.value), margin = Int(HeartRateLimits.clearingMargin)
        var checks: [RangeCheck] = []
        if let low = limits.low.map({ Int($0.value) }) {
            checks.append(RangeCheck(kind: .device(.heartRateLow, device), side: .below, isOutside: value < low,
                                     holdsRaised: value < low + margin, sustainedFor: limits.sustainedFor))
        }
        if let high = limits.high.map({ Int($0.value) }) {
            checks.append(RangeCheck(kind: .device(.heartRateHigh, device), side: .above, isOutside: value > high,
                                     holdsRaised: value > high - margin, sustainedFor: limits.sustainedFor))
        }
        receiveRanged(measured, checks, measuredAt: measuredAt, at: now)
    }

    mutating func receiveTemperature(_ device: DeviceID, _ temperature: Temperature,
                                     measuredAt: MonotonicInstant, at now: MonotonicInstant) {
        guard let limits = configuration.settings(for: device).temperature else { return }
        let value = temperature.degreesCelsius, margin = TemperatureLimits.clearingMargin
        var checks: [RangeCheck] = []
        if let low = limits.low?.degreesCelsius {
            let kind = AlarmKind.device(.temperatureLow, device)
            checks.append(RangeCheck(kind: kind, side: .below, isOutside: value < low,
                                     holdsRaised: value < low + margin, sustainedFor: limits.outOfRangeFor))
            checks.append(RangeCheck(kind: kind, side: .freezing, isOutside: value <= limits.freezing.degreesCelsius,
                                     holdsRaised: value < low + margin, sustainedFor: limits.freezingFor))
        }
        if let high = limits.high?.degreesCelsius {
            checks.append(RangeCheck(kind: .device(.temperatureHigh, device), side: .above, isOutside: value > high,
                                     holdsRaised: value > high - margin, sustainedFor: limits.outOfRangeFor))
        }
        receiveRanged(Measured(device: device, quantity: .temperature), checks, measuredAt: measuredAt, at: now)
    }

    /// The shared rule: a condition raises once every reading for `sustainedFor` was outside
    /// (one glitch never sounds), and clears once a reading is back inside by the margin.
    /// Readings are judged on the time they were measured; a stale or out-of-order one is
    /// ignored, so backfill never raises. Two readings further apart than `sustainedFor`
    /// break a run: nothing is known about the gap.
    private mutating func receiveRanged(_ measured: Measured, _ checks: [RangeCheck],
                                        measuredAt: MonotonicInstant, at now: MonotonicInstant) {
        guard now - measuredAt <= configuration.deviceReadingFreshFor else { return }
        let previous = deviceMemory.latest[measured]
        if let previous, measuredAt <= previous { return }
        deviceMemory.latest[measured] = measuredAt
        for check in checks {
            let condition = Condition(measured: measured, side: check.side)
            guard check.isOutside else {
                deviceMemory.outOfRangeSince[condition] = nil
                continue
            }
            var since = measuredAt
            if let start = deviceMemory.outOfRangeSince[condition], let previous, measuredAt - previous <= check.sustainedFor {
                since = start
            }
            deviceMemory.outOfRangeSince[condition] = since
            if measuredAt - since >= check.sustainedFor { raise(check.kind, at: now) }
        }
        var kinds: [AlarmKind] = []
        for check in checks where !kinds.contains(check.kind) { kinds.append(check.kind) }
        for kind in kinds where !checks.contains(where: { $0.kind == kind && $0.holdsRaised }) {
            clear(kind, at: now)
        }
    }
}
