import Clocks
import Readings
import Testing
@testable import Alarms

/// Each device channel on its own, on the virtual clock: raise, sustained-only, hysteresis,
/// clear, snooze bounds, snooze-all, restart. Whole timelines are in `DeviceAlarmScenarioTests`.
@Suite struct AlarmEngineDeviceRulesTests {
    static let g6Life = DeviceAlarmSettings(sensorLife: .seconds(240 * 3600), batteryLowBelowMillivolts: 3000)
    static let strap = DeviceAlarmSettings(heartRate: HeartRateLimits())
    static let fridge = DeviceAlarmSettings(temperature: TemperatureLimits())

    static func harness(_ devices: [DeviceID: DeviceAlarmSettings], watched: [DeviceID] = ["dexcom"]) -> ScenarioHarness {
        ScenarioHarness(AlarmConfiguration(watchedDevices: watched, devices: devices))
    }

    // MARK: Sensor warm-up

    @Test func warmUpChirpsOnceThenStaysQuietUntilItEnds() {
        var h = Self.harness([:])
        h.send(.sensor("dexcom", phase: .warmingUp, age: .zero), atMinute: 0)
        let kind = AlarmKind.device(.sensorWarmUp, "dexcom")
        #expect(h.engine.pattern == AlarmPattern(buzzer: .bursts(.low, escalated: false, kind: kind), led: .alarm(.low)))
        h.advance(toMinute: 0.5)
        #expect(h.engine.state.alarms[kind]?.status == .quiet(remindsAt: nil))
        #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .snoozed))
        // The transmitter reports "warmup" every 5 minutes: it is alive, so no signal loss.
        for m in stride(from: 5.0, through: 115, by: 5) { h.send(.sensor("dexcom", phase: .warmingUp, age: nil), atMinute: m) }
        #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .snoozed))
        h.send(.sensor("dexcom", phase: .running, age: nil), atMinute: 120)
        #expect(h.timeline == ["0 sensor-warmup:dexcom raised low", "120 sensor-warmup:dexcom cleared"])
    }

    @Test func aTransmitterThatFallsSilentDuringWarmUpStillRaisesSignalLoss() {
        var h = Self.harness([:])
        h.send(.sensor("dexcom", phase: .warmingUp, age: .zero), atMinute: 0)
        h.send(.sensor("dexcom", phase: .warmingUp, age: nil), atMinute: 5)
        h.advance(toMinute: 29)
        #expect(h.timeline == ["0 sensor-warmup:dexcom raised low", "25 signal-loss:dexcom raised medium"])
    }

    @Test func aFreshGlucoseReadingEndsWarmUpAndEnded() {
        var h = Self.harness([:])
        h.send(.sensor("dexcom", phase: .ended, age: nil), atMinute: 0)
        h.glucose(120, atMinute: 4, ageMinutes: 20)   // backfill says nothing about now
        #expect(h.timeline == ["0 sensor-ended:dexcom raised medium"])
        h.glucose(120, atMinute: 4)
        #expect(h.timeline == ["0 sensor-ended:dexcom raised medium", "4 sensor-ended:dexcom cleared"])
    }

    // MARK: Sensor expiring and ended

    @Test func expiringRaisesADayBeforeTheEndAndRemindsDaily() {
        var h = Self.harness(["dexcom": Self.g6Life], watched: [])
        h.send(.sensor("dexcom", phase: .running, age: .seconds(215 * 3600)), atMinute: 0)
        h.send(.sensor("dexcom", phase: nil, age: .seconds(216 * 3600 - 1)), atMinute: 60)
        h.send(.sensor("dexcom", phase: nil, age: .seconds(216 * 3600)), atMinute: 61)
        h.advance(toMinute: 62)
        #expect(h.engine.state.alarms[.device(.sensorExpiring, "dexcom")]?.status == .quiet(remindsAt: minute(61 + 1440)))
        h.advance(toMinute: 61 + 1440 + 1)
        // A new sensor is young: expiring clears.
        h.send(.sensor("dexcom", phase: nil, age: .seconds(3600)), atMinute: 1600)
        #expect(h.timeline == [
            "61 sensor-expiring:dexcom raised low",
            "1501 sensor-expiring:dexcom re-raised",       // one chirp a day, not a nag
            "1600 sensor-expiring:dexcom cleared",
        ])
    }

    @Test func withoutARatedLifeThereIsNoExpiringAlarm() {
        var h = Self.harness([:], watched: [])
        h.send(.sensor("cgm", phase: .running, age: .seconds(400 * 3600)), atMinute: 0)
        #expect(h.timeline.isEmpty)
    }

    @Test func endedReplacesSignalLossAndHoldsItOffUntilANewSensor() {
        var h = Self.harness(["dexcom": Self.g6Life])
        h.glucose(120, atMinute: 0)
        h.advance(toMinute: 21)
        h.send(.sensor("dexcom", phase: .ended, age: .seconds(240 * 3600)), atMinute: 22)
        #expect(h.engine.nextDeadline == minute(27))   // escalation only: no signal-loss timer
        h.send(.acknowledge(nil), atMinute: 28)
        h.advance(toMinute: 300)
        h.send(.sensor("dexcom", phase: .warmingUp, age: .zero), atMinute: 300)
        h.advance(toMinute: 324)
        #expect(h.timeline == [
            "20 signal-loss:dexcom raised medium",
            "22 signal-loss:dexcom cleared",               // the more specific alarm takes over
            "22 sensor-ended:dexcom raised medium",
            "27 sensor-ended:dexcom escalated",
            "28 sensor-ended:dexcom acknowledged until 88",
            "88 sensor-ended:dexcom re-raised",
            "93 sensor-ended:dexcom escalated",
            "300 sensor-ended:dexcom cleared",
            "300 sensor-warmup:dexcom raised low",
            "320 signal-loss:dexcom raised medium",        // the new sensor's timer starts at 300
        ])
    }

    // MARK: Battery

    @Test func batteryLowHasHysteresis() {
        var h = Self.harness([:], watched: [])
        for (m, level) in [(0, 25), (1, 21), (2, 19), (3, 21), (4, 19), (5, 24), (6, 25), (7, 21), (8, 20), (9, 19)] {
            h.send(.battery("bridge", .percent(Percent(level)!)), atMinute: Double(m))
        }
        #expect(h.timeline == [
            "2 battery-low:bridge raised low", "6 battery-low:bridge cleared", "9 battery-low:bridge raised low"])
    }

    @Test func dexcomVoltageAndTheTransmittersOwnVerdict() {
        var h = Self.harness(["dexcom": Self.g6Life], watched: [])
        for (m, millivolts) in [(0, 3010), (1, 2990), (2, 3040), (3, 3050)] {
            h.send(.battery("dexcom", .voltage(millivolts: millivolts)), atMinute: Double(m))
        }
        h.send(.battery("dexcom", .deviceSaysLow(true)), atMinute: 4)
        h.send(.battery("dexcom", .deviceSaysLow(false)), atMinute: 5)
        // No voltage limit configured: volts alone never raise.
        h.send(.battery("other", .voltage(millivolts: 100)), atMinute: 6)
        #expect(h.timeline == [
            "1 battery-low:dexcom raised low", "3 battery-low:dexcom cleared",
            "4 battery-low:dexcom raised low", "5 battery-low:dexcom cleared"])
    }

    @Test func batteryAlarmOffMeansOffForEveryReport() {
        var h = Self.harness(["meter": DeviceAlarmSettings(batteryLowBelow: nil)], watched: [])
        h.send(.battery("meter", .percent(.zero)), atMinute: 0)
        h.send(.battery("meter", .deviceSaysLow(true)), atMinute: 1)
        #expect(h.timeline.isEmpty)
    }

    // MARK: Heart rate

    /// One reading every 10 seconds from minute `from`, measured as it arrives.
    static func rates(_ h: inout ScenarioHarness, _ values: [UInt16], from: Double, contact: SkinContact = .detected) {
        for (k, value) in values.enumerated() {
            let m = from + Double(k) / 6
            h.send(.heartRate("hr1", BeatsPerMinute(value), contact: contact, measuredAt: minute(m)), atMinute: m)
        }
    }

    @Test func heartRateMustStayOutOfRangeForAMinute() {
        var h = Self.harness(["hr1": Self.strap], watched: [])
        Self.rates(&h, [60, 250, 60, 160, 160, 160, 160, 160], from: 0)       // a glitch, then 40 s high
        Self.rates(&h, [60], from: 1.5)
        #expect(h.timeline.isEmpty)
        Self.rates(&h, [35, 35, 35, 35, 35, 35, 35], from: 2)                 // 60 s low
        #expect(h.timeline == ["3 heart-rate-low:hr1 raised medium"])
    }

    @Test func noSkinContactIsNoDataAndBreaksARun() {
        var h = Self.harness(["hr1": Self.strap], watched: [])
        Self.rates(&h, [35, 35, 35], from: 0)
        Self.rates(&h, [0, 0, 0, 0], from: 0.5, contact: .notDetected)
        Self.rates(&h, [35, 35, 35, 35, 35, 35], from: 1.2)                   // 50 s: not yet a minute
        #expect(h.timeline.isEmpty)
        Self.rates(&h, [35], from: 2.2)
        #expect(h.timeline == ["2.2 heart-rate-low:hr1 raised medium"])
        Self.rates(&h, [0, 0], from: 3, contact: .notDetected)                 // strap slips: still raised
        Self.rates(&h, [42, 44], from: 4)                                      // within 5 bpm: holds
        Self.rates(&h, [45], from: 5)
        #expect(h.timeline == ["2.2 heart-rate-low:hr1 raised medium", "5 heart-rate-low:hr1 cleared"])
    }

    @Test func staleAndOutOfOrderHeartRatesNeverRaise() {
        var h = Self.harness(["hr1": Self.strap], watched: [])
        for k in 0..<12 {   // two minutes of 200 bpm, each delivered 6 minutes late
            let m = 10 + Double(k) / 6
            h.send(.heartRate("hr1", BeatsPerMinute(200), contact: .detected, measuredAt: minute(m - 6)), atMinute: m)
        }
        h.send(.heartRate("hr1", BeatsPerMinute(200), contact: .detected, measuredAt: minute(20)), atMinute: 20)
        h.send(.heartRate("hr1", BeatsPerMinute(200), contact: .detected, measuredAt: minute(19)), atMinute: 20.5)
        h.send(.heartRate("hr1", BeatsPerMinute(200), contact: .detected, measuredAt: minute(20.5)), atMinute: 20.5)
        #expect(h.timeline.isEmpty)
        h.send(.heartRate("hr1", BeatsPerMinute(200), contact: .detected, measuredAt: minute(21)), atMinute: 21)
        #expect(h.timeline == ["21 heart-rate-high:hr1 raised medium"])
    }

    @Test func aDeviceWithoutHeartRateLimitsNeverRaises() {
        var h = Self.harness([:], watched: [])
        Self.rates(&h, Array(repeating: 250, count: 30), from: 0)
        #expect(h.timeline.isEmpty)
    }

    // MARK: Temperature

    static func temperatures(_ h: inout ScenarioHarness, _ values: [Double], from: Double, every: Double = 1) {
        for (k, value) in values.enumerated() {
            let m = from + Double(k) * every
            h.send(.temperature("fridge", Temperature(degreesCelsius: value), measuredAt: minute(m)), atMinute: m)
        }
    }

    @Test func freezingSoundsAfterFiveMinutesAndClearsWithHysteresis() {
        var h = Self.harness(["fridge": Self.fridge], watched: [])
        Self.temperatures(&h, [4, 1, 1, 1, 0, -0.5, -1, -1, -1, -1, 0.5], from: 0)   // freezing from 4 to 9
        Self.temperatures(&h, [2.2, 2.4, 2.5], from: 11)
        #expect(h.timeline == ["9 temperature-low:fridge raised medium", "13 temperature-low:fridge cleared"])
    }

    @Test func coolBelowTwoDegreesNeedsHalfAnHour() {
        var h = Self.harness(["fridge": Self.fridge], watched: [])
        Self.temperatures(&h, Array(repeating: 1.5, count: 30), from: 0)
        #expect(h.timeline.isEmpty)
        Self.temperatures(&h, [1.5], from: 30)
        #expect(h.timeline == ["30 temperature-low:fridge raised medium"])
    }

    @Test func aGapLongerThanTheWindowRestartsTheRun() {
        var h = Self.harness(["fridge": Self.fridge], watched: [])
        Self.temperatures(&h, [12], from: 0)
        Self.temperatures(&h, [12, 12], from: 31, every: 30)   // 31 min gap: unknown, starts again at 31
        #expect(h.timeline == ["61 temperature-high:fridge raised medium"])
    }

    // MARK: Snooze, snooze all, restart

    @Test(arguments: [
        (DeviceAlarm.sensorEnded, 600, 120), (.temperatureHigh, 600, 240), (.heartRateLow, 600, 120),
        (.batteryLow, 3000, 1440), (.temperatureLow, 30, 30),
    ])
    func deviceAlarmSnoozesAreBounded(_ alarm: DeviceAlarm, _ requestedMinutes: Int, _ grantedMinutes: Int) {
        let kind = AlarmKind.device(alarm, "d")
        var engine = AlarmEngine(configuration: AlarmConfiguration(), now: .zero, restoring: AlarmEngine.State(
            alarms: [kind: ActiveAlarm(kind: kind, raisedAt: .zero, status: .sounding(escalatesAt: minute(5)))]))
        engine.receive(.snooze(kind, for: .seconds(requestedMinutes * 60)), at: .zero)
        #expect(engine.state.alarms[kind]?.status == .snoozed(until: minute(Double(grantedMinutes))))
    }

    @Test func snoozeAllSilencesDeviceAlarmsButNotAnEndedSensor() {
        var h = Self.harness(["hr1": Self.strap, "dexcom": Self.g6Life], watched: [])
        h.send(.snoozeAll(for: .seconds(3 * 3600)), atMinute: 0)
        Self.rates(&h, Array(repeating: 200, count: 7), from: 1)
        h.send(.battery("dexcom", .deviceSaysLow(true)), atMinute: 3)
        h.send(.sensor("dexcom", phase: .ended, age: nil), atMinute: 4)
        #expect(h.engine.playing?.kind == .device(.sensorEnded, "dexcom"))
        h.send(.acknowledge(nil), atMinute: 5)
        h.advance(toMinute: 180.5)
        #expect(h.timeline == [
            "2 heart-rate-high:hr1 raised medium", "2 heart-rate-high:hr1 snoozed until 180",
            "3 battery-low:dexcom raised low", "3 battery-low:dexcom snoozed until 180",
            "4 sensor-ended:dexcom raised medium",
            "5 sensor-ended:dexcom acknowledged until 65",
            "65 sensor-ended:dexcom re-raised", "70 sensor-ended:dexcom escalated",
            "180 heart-rate-high:hr1 re-raised", "180 battery-low:dexcom re-raised",
        ])
        // The battery chirp is over; heart rate keeps sounding until someone acts.
        #expect(h.engine.state.alarms[.device(.batteryLow, "dexcom")]?.status == .quiet(remindsAt: minute(180 + 1440)))
        #expect(h.engine.state.alarms[.device(.heartRateHigh, "hr1")]?.isSounding == true)
    }

    @Test func aQuietAlarmsReminderWaitsForSnoozeAllToEnd() {
        var h = Self.harness([:], watched: [])
        h.send(.battery("bridge", .percent(Percent(10)!)), atMinute: 0)
        h.send(.snoozeAll(for: .seconds(24 * 3600)), atMinute: 1000)
        h.advance(toMinute: 2500)
        #expect(h.timeline == ["0 battery-low:bridge raised low", "2440 battery-low:bridge re-raised"])
    }

    @Test func aQuietWarmUpStaysQuietAcrossARestart() throws {
        var before = Self.harness([:], watched: [])
        before.send(.sensor("dexcom", phase: .warmingUp, age: .zero), atMinute: 0)
        before.advance(toMinute: 30)
        let text = before.engine.state.text(at: before.now)
        var after = ScenarioHarness(AlarmConfiguration(), restoring: try AlarmEngine.State(text: text, at: .zero))
        after.advance(toMinute: 60)
        after.send(.sensor("dexcom", phase: .running, age: nil), atMinute: 90)
        #expect(after.timeline == ["90 sensor-warmup:dexcom cleared"])
    }
}

extension AlarmEngineDeviceRulesTests {
    @Test func anEndedSensorStillHoldsOffSignalLossAfterARestart() throws {
        var before = Self.harness([:])
        before.send(.sensor("dexcom", phase: .ended, age: nil), atMinute: 0)
        before.send(.acknowledge(nil), atMinute: 1)
        let text = before.engine.state.text(at: before.now)
        var after = ScenarioHarness(restoring: try AlarmEngine.State(text: text, at: .zero))
        after.advance(toMinute: 100)
        #expect(after.timeline == ["60 sensor-ended:dexcom re-raised", "65 sensor-ended:dexcom escalated"])
    }

    @Test func aWarmUpReportDoesNotStartWatchingAnUnwatchedDevice() {
        var h = Self.harness([:], watched: [])
        h.send(.sensor("cgm", phase: .warmingUp, age: nil), atMinute: 0)
        #expect(h.engine.nextDeadline == minute(5.0 / 60))   // the chirp's end, nothing else
        h.advance(toMinute: 60)
        #expect(h.timeline == ["0 sensor-warmup:cgm raised low"])
    }

    @Test func unconfiguredDevicesGetTheBasics() {
        let settings = AlarmConfiguration().settings(for: "anything")
        #expect(settings == DeviceAlarmSettings(sensorLife: nil, batteryLowBelow: Percent(20), batteryLowBelowMillivolts: nil,
                                                heartRate: nil, temperature: nil))
        #expect(AlarmConfiguration(devices: ["hr1": Self.strap]).settings(for: "hr1") == Self.strap)
    }
}
