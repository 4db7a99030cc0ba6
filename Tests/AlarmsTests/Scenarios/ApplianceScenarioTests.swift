import Clocks
import Readings
import Testing
@testable import Alarms

/// Scenarios where the data or the appliance fails, and where a person presses the button
/// (signal loss then backfill, controller lost, storage broken, snooze, snooze all,
/// escalation). Whole timelines, as in `GlucoseScenarioTests`.
@Suite struct ApplianceScenarioTests {
    typealias H = FaceScenarioHarness

    @Test func signalLossThenBackfill() {
        var h = H()
        h.trace([120, 118], fromMinute: 0)
        // Silence from minute 5: signal loss at 25. At 45 the transmitter is back with backfill
        // of what it measured meanwhile, including a 52 that must not raise anything (stale).
        // The live reading comes first, as the Dexcom session delivers it (glucose, then
        // backfill); the backfilled readings only feed the trend.
        h.glucose(104, atMinute: 45)
        for (age, value) in [(35.0, 110.0), (30, 90), (25, 70), (20, 52), (15, 60), (10, 75), (5, 90)] {
            h.glucose(value, atMinute: 45, ageMinutes: age)
        }
        h.advance(toMinute: 60)
        #expect(h.timeline == ["25 signal-loss:dexcom raised medium", "30 signal-loss:dexcom escalated", "45 signal-loss:dexcom cleared"])
        #expect(h.patterns == [
            "0 silent / heartbeat", "25 medium signal-loss:dexcom / alarm medium",
            "30 medium! signal-loss:dexcom / alarm medium", "45 silent / heartbeat",
        ])
        #expect(h.firstBurst(atMinute: 25) == (H.mediumBurst, "on+0 off+700 on+1750 off+2450 on+3500"))
        #expect(h.firstBurst(atMinute: 30).buzzer == H.mediumBurst)
        #expect(h.firstBurst(atMinute: 45).buzzer == "")
    }

    @Test func controllerLost() {
        var h = H()
        h.trace([120, 121, 119], fromMinute: 0)
        h.send(.faultRaised(.controllerLost), atMinute: 12)
        h.send(.faultCleared(.controllerLost), atMinute: 40)
        h.trace([117, 118], fromMinute: 41)
        h.advance(toMinute: 47)
        // With the controller gone no reading arrives: signal loss follows 20 min after the last.
        #expect(h.timeline == [
            "12 fault:controller-lost raised medium", "17 fault:controller-lost escalated", "30 signal-loss:dexcom raised medium",
            "35 signal-loss:dexcom escalated", "40 fault:controller-lost cleared", "41 signal-loss:dexcom cleared",
        ])
        // Both medium and escalated: the older (controller lost) plays; when it clears, signal
        // loss takes over the same rhythm without a restart.
        #expect(h.patterns == [
            "0 silent / heartbeat", "12 medium fault:controller-lost / alarm medium",
            "17 medium! fault:controller-lost / alarm medium", "40 medium! signal-loss:dexcom / alarm medium", "41 silent / heartbeat",
        ])
        #expect(h.firstBurst(atMinute: 12) == (H.mediumBurst, "on+0 off+700 on+1750 off+2450 on+3500"))
        #expect(h.firstBurst(atMinute: 17).buzzer == H.mediumBurst)
        // 23 min after 17:00 is 5.3 s into the 5.9 s escalated cycle: the next burst at +600.
        #expect(h.firstBurst(atMinute: 40).buzzer == "on+600 off+800 on+950 off+1150 on+1300 off+1500")
        // At 41:00 the second pulse is sounding (350-550 ms): silence waits for its end.
        #expect(h.firstBurst(atMinute: 41).buzzer == "off+150")
    }

    @Test func storageBroken() {
        var h = H()
        h.trace([120, 121], fromMinute: 0)
        h.send(.faultRaised(.storageFailing), atMinute: 7)
        h.shortPress(atMinute: 9)
        h.trace([119, 118, 120, 122, 121, 119, 120], fromMinute: 10)
        h.send(.faultCleared(.storageFailing), atMinute: 44)
        h.glucose(118, atMinute: 45)
        #expect(h.timeline == [
            "7 fault:storage-failing raised low", "9.0105 fault:storage-failing snoozed until 24.0105",
            "24.0105 fault:storage-failing re-raised", "29.0105 fault:storage-failing escalated", "44 fault:storage-failing cleared",
        ])
        // Snoozed, the LED shows the fault rhythm, not the snoozed flash: the box is broken.
        #expect(h.patterns == [
            "0 silent / heartbeat", "7 low fault:storage-failing / alarm low", "9.0105 silent / fault",
            "24.0105 low fault:storage-failing / alarm low", "29.0105 low! fault:storage-failing / alarm low", "44 silent / heartbeat",
        ])
        #expect(h.gestures == ["9.0105 short"])
        #expect(h.firstBurst(atMinute: 7) == (H.lowBurst, "on+0"))
        #expect(h.firstBurst(atMinute: 9.0105) == ("", "off+750 on+1000 off+1250 on+1500 off+1750 on+3000 off+3750"))
        #expect(h.firstBurst(atMinute: 24.0105) == (H.lowBurst, "on+0"))
        #expect(h.firstBurst(atMinute: 29.0105) == (H.lowEscalatedBurst, ""))
        #expect(h.firstBurst(atMinute: 44) == ("", "off+80 on+200 off+280 on+3000 off+3080 on+3200 off+3280"))
    }

    @Test func shortPressSnoozesUrgentLowThenItSoundsAgain() {
        var h = H()
        h.glucose(52, atMinute: 0)
        h.shortPress(atMinute: 1)
        h.trace([51, 50, 50, 51, 50, 52, 53], fromMinute: 5)
        // Fresh readings every 5 minutes: the snooze ends and urgent low sounds again.
        #expect(h.timeline == [
            "0 urgent-low raised high", "1.0105 urgent-low snoozed until 16.0105", "16.0105 urgent-low re-raised",
            "21.0105 urgent-low escalated",
        ])
        #expect(h.patterns == [
            "0 silent / heartbeat", "0 high urgent-low / alarm high", "1.0105 silent / snoozed",
            "16.0105 high urgent-low / alarm high", "21.0105 high! urgent-low / alarm high",
        ])
        #expect(h.gestures == ["1.0105 short"])
        let highLED = "on+0 off+200 on+500 off+700 on+1000 off+1200 on+1500 off+1700 on+2000 off+2200 on+2500 off+2700 "
            + "on+3000 off+3200 on+3500 off+3700"
        #expect(h.firstBurst(atMinute: 0) == (H.highBurst, highLED))
        // 60.63 s is 7.83 s into the 8.8 s cycle: silence already, so no buzzer write at all.
        #expect(h.firstBurst(atMinute: 1.0105).buzzer == "")
        #expect(h.firstBurst(atMinute: 16.0105) == (H.highBurst, highLED))
        #expect(h.firstBurst(atMinute: 21.0105).buzzer == H.highBurst)
    }

    @Test func longPressSnoozesAllButNeverUrgentLow() {
        var h = H()
        h.trace([262, 265], fromMinute: 0)
        h.longPress(atMinute: 6)
        h.trace([270, 290, 305, 310], fromMinute: 10)
        h.trace([200, 150, 110, 80, 60, 54], fromMinute: 30)
        h.advance(toMinute: 56)
        // Snooze all (2 h) covers high, urgent high, urgent low soon and low as they come;
        // urgent low sounds at once.
        #expect(h.timeline == [
            "0 high raised low", "5 high escalated", "6.0505 high snoozed until 126.0505", "20 high cleared",
            "20 urgent-high raised medium", "20 urgent-high snoozed until 126.0505", "30 urgent-high cleared",
            "35 urgent-low-soon raised high", "35 urgent-low-soon snoozed until 126.0505", "50 low raised medium",
            "50 low snoozed until 126.0505", "55 urgent-low-soon cleared", "55 low cleared", "55 urgent-low raised high",
        ])
        #expect(h.patterns == [
            "0 silent / heartbeat", "0 low high / alarm low", "5 low! high / alarm low", "6.0505 silent / snoozed",
            "30 silent / heartbeat", "35 silent / snoozed", "55 high urgent-low / alarm high",
        ])
        #expect(h.gestures == ["6.0505 long"])
        #expect(h.firstBurst(atMinute: 0).buzzer == H.lowBurst)
        #expect(h.firstBurst(atMinute: 5).buzzer == H.lowEscalatedBurst)
        #expect(h.firstBurst(atMinute: 6.0505).buzzer == "")
        #expect(h.firstBurst(atMinute: 55).buzzer == H.highBurst)
    }

    @Test func unacknowledgedLowEscalatesAfterFiveMinutes() {
        var h = H()
        h.glucose(66, atMinute: 0)
        h.advance(toMinute: 6)
        #expect(h.timeline == ["0 low raised medium", "5 low escalated"])
        #expect(h.patterns == ["0 silent / heartbeat", "0 medium low / alarm medium", "5 medium! low / alarm medium"])
        #expect(h.firstBurst(atMinute: 0) == (H.mediumBurst, "on+0 off+700 on+1750 off+2450 on+3500"))
        // Escalation cuts in at once (the buzzer was in its 10 s silence); the LED keeps its
        // rhythm: 300 s is 750 ms into its 1.75 s cycle, so the next flash is at +1000.
        #expect(h.firstBurst(atMinute: 5) == (H.mediumBurst, "on+1000 off+1700 on+2750 off+3450"))
    }
}

/// Sensor end: the transmitter says the session is over, glucose stops. The
/// ended sensor sounds (medium: nothing watches the glucose now) and is what plays; the signal
/// loss that would follow 20 minutes later is not raised on top of it. A new sensor's warm-up
/// clears it with one chirp, and readings after warm-up bring the heartbeat back.
@Suite struct SensorEndScenarioTests {
    typealias H = FaceScenarioHarness

    @Test func sensorEndsThenANewOneWarmsUp() {
        var h = H()
        h.send(.sensor("dexcom", phase: .running, age: .seconds(239 * 3600)), atMinute: 0)
        h.trace([120, 118], fromMinute: 0)
        h.send(.sensor("dexcom", phase: .ended, age: .seconds(240 * 3600)), atMinute: 10)
        h.advance(toMinute: 50)
        // A new sensor: two hours of warm-up, the transmitter reporting its state every 5 min.
        for minute in stride(from: 50.0, through: 165, by: 5) {
            h.send(.sensor("dexcom", phase: .warmingUp, age: .seconds(Int64((minute - 50) * 60))), atMinute: minute)
        }
        h.send(.sensor("dexcom", phase: .running, age: .seconds(2 * 3600)), atMinute: 170)
        h.glucose(110, atMinute: 171)
        h.advance(toMinute: 175)
        #expect(h.timeline == [
            "10 sensor-ended:dexcom raised medium", "15 sensor-ended:dexcom escalated",
            "50 sensor-ended:dexcom cleared", "50 sensor-warmup:dexcom raised low", "170 sensor-warmup:dexcom cleared",
        ], "no signal loss while the sensor has ended or warms up")
        #expect(h.patterns == [
            "0 silent / heartbeat", "10 medium sensor-ended:dexcom / alarm medium", "15 medium! sensor-ended:dexcom / alarm medium",
            "50 low sensor-warmup:dexcom / alarm low", "50.083333333333336 silent / snoozed", "170 silent / heartbeat",
        ])
        #expect(h.firstBurst(atMinute: 10) == (H.mediumBurst, "on+0 off+700 on+1750 off+2450 on+3500"))
        // Warm-up is one chirp, then quiet: a normal sensor change must not wake the house. The
        // chirp waits 400 ms for the ended alarm's pulse to finish and its gap to pass.
        #expect(h.firstBurst(atMinute: 50).buzzer == "on+400 off+600")
    }
}
