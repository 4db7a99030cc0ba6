import Clocks
import Readings
import Testing
@testable import Alarms

/// Scenario suite: scripted traces on a virtual clock, asserting the whole
/// timeline of events and the pattern at the moments that matter. Readings arrive every 5
/// minutes, as from a Dexcom G6/G7.
@Suite struct AlarmEngineTests {
    let rateOn = AlarmConfiguration(
        thresholds: GlucoseThresholds(fallingFast: GlucoseThresholds.standardRate,
                                      risingFast: GlucoseThresholds.standardRate),
        watchedDevices: ["dexcom"])

    @Test func slowOvernightLowWarnsThenPredictsThenSoundsUrgentLow() {
        var h = ScenarioHarness()
        // 100 mg/dL falling 2 mg/dL every 5 minutes (-0.4 mg/dL/min), then level at 50.
        for k in 0...30 {
            let t = Double(k * 5)
            let value = max(100 - 2 * Double(k), 50)
            h.glucose(value, atMinute: t)
            if t == 80 {
                #expect(h.engine.pattern == AlarmPattern(
                    buzzer: .bursts(.medium, escalated: true, kind: .glucose(.low)), led: .alarm(.medium)))
                h.send(.acknowledge(nil), atMinute: 81)
                #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .snoozed))
            }
            if t == 95 {
                #expect(h.engine.pattern == AlarmPattern(
                    buzzer: .bursts(.high, escalated: false, kind: .glucose(.urgentLowSoon)), led: .alarm(.high)))
            }
            if t == 115 {
                // Asking for an hour gets the 30-minute bound of urgent low.
                h.send(.snooze(.urgentLow, for: .seconds(3600)), atMinute: 116)
                #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .snoozed))
            }
        }
        #expect(h.timeline == [
            "75 low raised medium",                   // 70 mg/dL
            "80 low escalated",                       // 5 minutes unacknowledged
            "81 low acknowledged until 96",
            "95 urgent-low-soon raised high",         // 62 now, -0.4/min: 54 in 20 min
            "96 low re-raised",
            "100 urgent-low-soon escalated",
            "101 low escalated",
            "115 urgent-low-soon cleared",            // 54: urgent low supersedes both
            "115 low cleared",
            "115 urgent-low raised high",
            "116 urgent-low snoozed until 146",
            "146 urgent-low re-raised",               // still 50: sounds again after 30 min
        ])
        #expect(h.engine.pattern == AlarmPattern(
            buzzer: .bursts(.high, escalated: false, kind: .urgentLow), led: .alarm(.high)))
    }

    @Test func fastDropRaisesFallingFastAndLowToUrgentLowReRaisesAtOnce() {
        var h = ScenarioHarness(rateOn)
        for (k, value) in [150.0, 130, 110, 90, 70].enumerated() { h.glucose(value, atMinute: Double(k * 5)) }
        h.send(.snooze(.glucose(.low), for: .seconds(30 * 60)), atMinute: 21)
        h.glucose(50, atMinute: 25)
        #expect(h.timeline == [
            "15 urgent-low-soon raised high",         // 90 at -4/min: 10 in 20 min
            "15 falling-fast raised medium",
            "20 urgent-low-soon escalated",
            "20 falling-fast escalated",
            "20 low raised medium",
            "21 low snoozed until 51",
            "25 urgent-low-soon cleared",
            "25 low cleared",
            "25 urgent-low raised high",              // worsening: at once, snooze of low or not
        ])
        #expect(h.engine.playing?.kind == .urgentLow)
    }

    @Test func compressionLowThatRecoversRaisesOnlyUrgentLowAndClearsIt() {
        var h = ScenarioHarness(rateOn)
        for k in 0...3 { h.glucose(110, atMinute: Double(k * 5)) }
        h.glucose(50, atMinute: 20)   // lying on the sensor
        #expect(h.engine.pattern.buzzer == .bursts(.high, escalated: false, kind: .urgentLow))
        h.glucose(110, atMinute: 25)
        h.glucose(110, atMinute: 30)
        // One noisy reading neither trips falling/rising fast nor a forecast.
        #expect(h.timeline == ["20 urgent-low raised high", "25 urgent-low escalated", "25 urgent-low cleared"])
        #expect(h.engine.pattern == .allWell)
    }

    @Test func highAfterMealWithSnoozeAllAndHysteresis() {
        var h = ScenarioHarness()
        let trace: [Double] = [140, 155, 170, 185, 200, 215, 230, 245, 260, 275, 260, 248, 240, 200]
        for (k, value) in trace.enumerated() {
            h.glucose(value, atMinute: Double(k * 5))
            if k == 9 { h.send(.snoozeAll(for: .seconds(2 * 3600)), atMinute: 46) }
        }
        #expect(h.timeline == [
            "40 high raised low",                     // 260 ≥ 250; rising fast is off by default
            "45 high escalated",
            "46 high snoozed until 166",
            "60 high cleared",                        // 248 holds (5 mg/dL hysteresis), 240 clears
        ])
        #expect(h.engine.pattern == .allWell)
    }

    @Test func snoozeAllNeverSilencesUrgentLowNorSignalLoss() {
        var h = ScenarioHarness()
        h.send(.snoozeAll(for: .seconds(8 * 3600)), atMinute: 0)
        h.glucose(65, atMinute: 1)
        h.glucose(50, atMinute: 6)
        #expect(h.timeline == [
            "1 low raised medium", "1 low snoozed until 480",
            "6 low cleared", "6 urgent-low raised high",
        ])
        #expect(h.engine.pattern.buzzer == .bursts(.high, escalated: false, kind: .urgentLow))
        h.advance(toMinute: 26)
        #expect(h.timeline.suffix(2) == ["11 urgent-low escalated", "26 signal-loss:dexcom raised medium"])
        #expect(h.engine.activeAlarms.first { $0.kind == .signalLoss("dexcom") }?.isSounding == true)
    }

    /// A watched device gets one whole interval from start; its first reading replaces that
    /// grace even when measured before the start, as a followed server's newest reading is:
    /// 9.5 minutes old at minute 0 makes signal loss due at 10.5, not at 20.
    @Test func theFirstReadingAfterStartReplacesTheGraceEvenWhenOlder() {
        var h = ScenarioHarness()
        h.glucose(120, atMinute: 0, ageMinutes: 9.5)
        h.advance(toMinute: 11)
        #expect(h.timeline == ["10.5 signal-loss:dexcom raised medium"])
        // A later, older reading no longer moves the timer back.
        var g = ScenarioHarness()
        g.glucose(120, atMinute: 1)
        g.glucose(118, atMinute: 2, ageMinutes: 15)
        g.advance(toMinute: 21.5)
        #expect(g.timeline == ["21 signal-loss:dexcom raised medium"])
    }

    @Test func signalLossThenBackfillNeverRaisesGlucoseFromStaleData() {
        var h = ScenarioHarness()
        for k in 0...2 { h.glucose(100, atMinute: Double(k * 5)) }
        h.advance(toMinute: 30)
        #expect(h.engine.pattern == AlarmPattern(
            buzzer: .bursts(.medium, escalated: false, kind: .signalLoss("dexcom")), led: .alarm(.medium)))
        h.send(.acknowledge(nil), atMinute: 31)
        #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .searching))
        // Back at 40 with the missed readings, low while lost but 15-25 minutes old.
        for t in [15.0, 20, 25] { h.glucose(60, atMinute: 40, ageMinutes: 40 - t) }
        h.glucose(100, atMinute: 40)
        #expect(h.timeline == [
            "30 signal-loss:dexcom raised medium",    // 20 minutes after the last reading at 10
            "31 signal-loss:dexcom acknowledged until 61",
            "40 signal-loss:dexcom cleared",
        ])
        #expect(h.engine.pattern == .allWell)
    }

    /// A transmitter that keeps serving the reading it already gave (reconnected, re-read, or
    /// stuck) is not heard anew: signal loss runs from when that reading was measured.
    @Test func aReadingReceivedAgainKeepsNoSignalLossAway() {
        var h = ScenarioHarness()
        h.glucose(100, atMinute: 0)
        for m in [5.0, 10, 15, 19] { h.glucose(100, atMinute: m, ageMinutes: m) }  // the minute-0 reading again
        h.send(.readingReceived("dexcom", measuredAt: minute(0)), atMinute: 19.5)
        h.advance(toMinute: 20)
        #expect(h.timeline == ["20 signal-loss:dexcom raised medium"])
        // A reading measured now clears it; one measured before the last is no news.
        h.send(.readingReceived("dexcom", measuredAt: minute(21)), atMinute: 21)
        h.send(.readingReceived("dexcom", measuredAt: minute(3)), atMinute: 22)
        h.advance(toMinute: 40)
        #expect(h.timeline == ["20 signal-loss:dexcom raised medium", "21 signal-loss:dexcom cleared"])
        h.advance(toMinute: 41)
        #expect(h.timeline.last == "41 signal-loss:dexcom raised medium")  // 20 minutes after minute 21
    }

    @Test func snoozeEndingOnStaleDataWaitsForAFreshReading() {
        var h = ScenarioHarness()
        h.glucose(65, atMinute: 0)
        h.send(.snooze(.glucose(.low), for: .seconds(15 * 60)), atMinute: 1)
        h.advance(toMinute: 21)
        // Acknowledging "no data" leaves the glucose alarm alone.
        h.send(.acknowledge(nil), atMinute: 21)
        #expect(h.engine.state.alarms[.glucose(.low)]?.status == .awaitingFreshData)
        h.glucose(66, atMinute: 25)
        #expect(h.timeline == [
            "0 low raised medium",
            "1 low snoozed until 16",                 // at 16 the last reading is 16 min old: stale
            "20 signal-loss:dexcom raised medium",
            "21 signal-loss:dexcom acknowledged until 51",
            "25 signal-loss:dexcom cleared",
            "25 low re-raised",                       // a fresh reading confirms it
        ])
    }

    @Test func applianceFaultsSoundClearAndIgnoreSnoozeAll() {
        var h = ScenarioHarness(AlarmConfiguration())
        h.send(.faultRaised(.controllerLost), atMinute: 0)
        h.send(.faultRaised(.storageFailing), atMinute: 1)
        #expect(h.engine.pattern == AlarmPattern(
            buzzer: .bursts(.medium, escalated: false, kind: .fault(.controllerLost)), led: .alarm(.medium)))
        h.send(.snoozeAll(for: .seconds(3600)), atMinute: 2)
        h.send(.acknowledge(nil), atMinute: 6)       // controller lost has escalated: acknowledge it
        #expect(h.engine.pattern == AlarmPattern(
            buzzer: .bursts(.low, escalated: true, kind: .fault(.storageFailing)), led: .alarm(.low)))
        h.send(.acknowledge(.fault(.storageFailing)), atMinute: 7)
        #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .fault))
        h.send(.faultCleared(.storageFailing), atMinute: 8)
        h.advance(toMinute: 66)
        h.send(.faultCleared(.controllerLost), atMinute: 70)
        #expect(h.timeline == [
            "0 fault:controller-lost raised medium",
            "1 fault:storage-failing raised low",
            "5 fault:controller-lost escalated",
            "6 fault:storage-failing escalated",
            "6 fault:controller-lost acknowledged until 66",
            "7 fault:storage-failing acknowledged until 67",
            "8 fault:storage-failing cleared",
            "66 fault:controller-lost re-raised",
            "70 fault:controller-lost cleared",
        ])
        #expect(h.engine.pattern == .allWell)
        #expect(h.engine.nextDeadline == nil)
    }

    @Test func nightProfileInMillimolesPerLitreFollowsLocalTime() {
        // Night 22:00-07:00 local with low at 4.4 mmol/L (79 mg/dL); local is UTC+2.
        let night = TimedProfile(start: TimeOfDay(hour: 22)!, end: TimeOfDay(hour: 7)!,
                                 thresholds: GlucoseThresholds(low: GlucoseConcentration(millimolesPerLiter: 4.4)))
        var h = ScenarioHarness(AlarmConfiguration(profiles: [night], utcOffset: .seconds(2 * 3600)))
        let day = WallClockTime(secondsSinceEpoch: 1_795_000_000 - 1_795_000_000 % 86400 + 12 * 3600) // 14:00 local
        h.glucose(75, atMinute: 0, wallClock: day)
        #expect(h.timeline.isEmpty)
        h.glucose(75, atMinute: 5, wallClock: day + .seconds(11 * 3600))    // 01:00 local
        #expect(h.timeline == ["5 low raised medium"])
    }

    @Test func unknownSnoozeAndAcknowledgeTargetsChangeNothing() {
        var h = ScenarioHarness(AlarmConfiguration())
        h.send(.snooze(.glucose(.high), for: .seconds(600)), atMinute: 0)
        h.send(.acknowledge(nil), atMinute: 0)
        h.send(.acknowledge(.urgentLow), atMinute: 0)
        h.send(.snoozeAll(for: .zero), atMinute: 0)
        #expect(h.timeline.isEmpty)
        #expect(h.engine.nextDeadline == nil)
        #expect(h.engine.pattern == .allWell)
    }

    struct SnoozeBound: Sendable, CustomTestStringConvertible {
        var kind: AlarmKind
        var requestedMinutes: Int
        var grantedMinutes: Int
        var testDescription: String { "\(kind) \(requestedMinutes) min -> \(grantedMinutes) min" }
    }

    @Test(arguments: [
        SnoozeBound(kind: .urgentLow, requestedMinutes: 60, grantedMinutes: 30),
        SnoozeBound(kind: .urgentLow, requestedMinutes: 15, grantedMinutes: 15),
        SnoozeBound(kind: .glucose(.urgentLowSoon), requestedMinutes: 45, grantedMinutes: 30),
        SnoozeBound(kind: .glucose(.low), requestedMinutes: 600, grantedMinutes: 120),
        SnoozeBound(kind: .glucose(.high), requestedMinutes: 24 * 60, grantedMinutes: 12 * 60),
        SnoozeBound(kind: .signalLoss("dexcom"), requestedMinutes: 60, grantedMinutes: 30),
        SnoozeBound(kind: .fault(.clockNotSet), requestedMinutes: 600, grantedMinutes: 240),
        SnoozeBound(kind: .glucose(.low), requestedMinutes: 0, grantedMinutes: 1),
    ])
    func snoozeIsBoundedPerAlarm(_ bound: SnoozeBound) {
        let start = MonotonicInstant.zero
        var engine = AlarmEngine(configuration: AlarmConfiguration(), now: start,
                                 restoring: AlarmEngine.State(alarms: [bound.kind: ActiveAlarm(
                                     kind: bound.kind, raisedAt: start, status: .sounding(escalatesAt: minute(5)))]))
        engine.receive(.snooze(bound.kind, for: .seconds(bound.requestedMinutes * 60)), at: start)
        let until = minute(Double(bound.grantedMinutes))
        #expect(engine.takeEvents() == [AlarmEvent(time: start, kind: bound.kind, change: .snoozed(until: until))])
        #expect(engine.state.alarms[bound.kind]?.status == .snoozed(until: until))
        #expect(engine.nextDeadline == until)
    }

    @Test func restartDuringActiveAlarmBringsItBack() throws {
        var before = ScenarioHarness()
        before.glucose(50, atMinute: 0)
        before.glucose(50, atMinute: 5)
        before.send(.snooze(.urgentLow, for: .seconds(10 * 60)), atMinute: 6)
        before.send(.faultRaised(.storageFailing), atMinute: 7)
        let text = before.engine.state.text(at: before.now)
        // The new boot's monotonic clock starts again from zero.
        var after = ScenarioHarness(restoring: try AlarmEngine.State(text: text, at: .zero))
        #expect(after.engine.pattern == AlarmPattern(
            buzzer: .bursts(.low, escalated: false, kind: .fault(.storageFailing)), led: .alarm(.low)))
        after.advance(toMinute: 9)
        #expect(after.engine.state.alarms[.urgentLow]?.status == .awaitingFreshData)
        after.glucose(52, atMinute: 11)
        #expect(after.timeline == [
            "5 fault:storage-failing escalated",   // the 5 minutes it had left before escalating
            "11 urgent-low re-raised",             // snooze ran out (9) with no data: the first fresh reading
        ])
        #expect(after.engine.playing?.kind == .urgentLow)
    }

    @Test func acknowledgedUrgentLowSoundsAgainAfterThirtyMinutesAndLowHasHysteresis() {
        var h = ScenarioHarness()
        h.glucose(54, atMinute: 0)
        h.send(.acknowledge(nil), atMinute: 1)
        for k in 1...6 { h.glucose(54, atMinute: Double(k * 5)) }
        h.glucose(60, atMinute: 35)      // above 55 but inside the 5 mg/dL margin: still urgent low
        h.glucose(61, atMinute: 40)      // out of urgent low, into low
        h.glucose(74, atMinute: 45)      // 70 + 4: low holds
        h.glucose(76, atMinute: 50)      // clears
        #expect(h.timeline == [
            "0 urgent-low raised high",
            "1 urgent-low acknowledged until 31",
            "31 urgent-low re-raised",
            "36 urgent-low escalated",
            "40 urgent-low cleared",
            "40 low raised medium",
            "45 low escalated",
            "50 low cleared",
        ])
    }
}
