import Clocks
import Readings
import Testing
@testable import Alarms

/// Whole timelines for the device alarms, in the style of
/// `AlarmEngineTests`: scripted traces on a virtual clock, every event asserted.
@Suite struct DeviceAlarmScenarioTests {
    /// A Dexcom G6 session from insertion to its end and the next sensor: the transmitter
    /// connects every 5 minutes and reports its state and the session age; glucose comes only
    /// between warm-up and the end. Ten days at 5-minute steps.
    @Test func sensorEnd() {
        let g6 = DeviceAlarmSettings(sensorLife: .seconds(240 * 3600), batteryLowBelowMillivolts: 3000)
        var h = ScenarioHarness(AlarmConfiguration(watchedDevices: ["dexcom"], devices: ["dexcom": g6]))
        func report(_ phase: SensorPhase, at m: Double, sessionStart: Double = 0) {
            h.send(.sensor("dexcom", phase: phase, age: .seconds(Int64((m - sessionStart) * 60))), atMinute: m)
        }
        for m in stride(from: 0.0, to: 120, by: 5) { report(.warmingUp, at: m) }
        // Warm-up is over: glucose every 5 minutes, flat at 120 mg/dL, until the session ends
        // at 10 days (14 400 minutes).
        for m in stride(from: 120.0, through: 14_400, by: 5) {
            report(.running, at: m)
            h.glucose(120, atMinute: m)
            if m == 12_960 {
                #expect(h.engine.pattern == AlarmPattern(
                    buzzer: .bursts(.low, escalated: false, kind: .device(.sensorExpiring, "dexcom")), led: .alarm(.low)))
            }
            if m == 12_965 { #expect(h.engine.pattern == AlarmPattern(buzzer: .silent, led: .snoozed)) }
        }
        // "session ended": no more glucose, but the transmitter still reports every 5 minutes.
        for m in stride(from: 14_405.0, through: 14_450, by: 5) { report(.ended, at: m) }
        #expect(h.engine.pattern == AlarmPattern(
            buzzer: .bursts(.medium, escalated: true, kind: .device(.sensorEnded, "dexcom")), led: .alarm(.medium)))
        h.send(.acknowledge(nil), atMinute: 14_451)
        // The person takes the transmitter off the old sensor: silence. No signal loss.
        h.advance(toMinute: 14_600)
        // A new sensor: two hours of warm-up, then glucose again.
        for m in stride(from: 14_600.0, to: 14_720, by: 5) { report(.warmingUp, at: m, sessionStart: 14_600) }
        report(.running, at: 14_720, sessionStart: 14_600)
        h.glucose(110, atMinute: 14_720)
        #expect(h.timeline == [
            "0 sensor-warmup:dexcom raised low",          // one chirp, then quiet: not a wake-up
            "120 sensor-warmup:dexcom cleared",
            "12960 sensor-expiring:dexcom raised low",    // 216 h: a day before the end
            "14400 sensor-expiring:dexcom re-raised",     // the next day's reminder chirp
            "14405 sensor-expiring:dexcom cleared",
            "14405 sensor-ended:dexcom raised medium",
            "14410 sensor-ended:dexcom escalated",
            "14451 sensor-ended:dexcom acknowledged until 14511",
            "14511 sensor-ended:dexcom re-raised",        // nothing watches glucose: it comes back
            "14516 sensor-ended:dexcom escalated",
            "14600 sensor-ended:dexcom cleared",
            "14600 sensor-warmup:dexcom raised low",
            "14720 sensor-warmup:dexcom cleared",
        ])
        #expect(!h.timeline.contains { $0.contains("signal-loss") })
        #expect(h.engine.pattern == .allWell)
    }

    /// The fridge door left ajar: a reading a minute, 5 °C, then climbing to 12 °C for 40
    /// minutes until someone shuts it and the fridge recovers.
    @Test func fridgeDoorLeftOpen() {
        var h = ScenarioHarness(AlarmConfiguration(devices: ["fridge": DeviceAlarmSettings(temperature: TemperatureLimits())]))
        func temperature(_ celsius: Double, atMinute m: Double) {
            h.send(.temperature("fridge", Temperature(degreesCelsius: celsius), measuredAt: minute(m)), atMinute: m)
        }
        var curve: [Double] = Array(repeating: 5, count: 10)                       // 0-9
        curve += [7, 8.5, 10, 11, 11.5] + Array(repeating: 12, count: 35)          // 10-49: above 8 from 11
        curve += [10, 9, 8.2, 7.8, 7.4, 6, 5, 5]                                   // 50-57: door shut
        for (m, value) in curve.enumerated() {
            temperature(value, atMinute: Double(m))
            if m == 20 { #expect(h.engine.pattern == .allWell) }   // ten minutes warm: nothing yet
            if m == 41 {
                #expect(h.engine.pattern == AlarmPattern(
                    buzzer: .bursts(.medium, escalated: false, kind: .device(.temperatureHigh, "fridge")), led: .alarm(.medium)))
            }
            if m == 46 { h.send(.acknowledge(nil), atMinute: 46.5) }
        }
        #expect(h.timeline == [
            "41 temperature-high:fridge raised medium",    // 30 minutes above 8 °C (from 11)
            "46 temperature-high:fridge escalated",
            "46.5 temperature-high:fridge acknowledged until 106.5",
            "54 temperature-high:fridge cleared",          // 7.4 °C: back below 8 - 0.5
        ])
        #expect(h.engine.pattern == .allWell)
        #expect(h.engine.nextDeadline == nil)
    }

    /// A chest strap reading once a second: one spike of 250 bpm among normal beats, a few
    /// seconds of strap noise with no skin contact, and nothing else. Nothing sounds.
    @Test func heartRateStrapGlitch() {
        var h = ScenarioHarness(AlarmConfiguration(devices: ["hr1": DeviceAlarmSettings(heartRate: HeartRateLimits())]))
        for second in 0..<300 {
            let m = Double(second) / 60
            let rate: UInt16 = second == 90 ? 250 : 58 + UInt16(second % 5)
            let contact: SkinContact = (200..<205).contains(second) ? .notDetected : .detected
            h.send(.heartRate("hr1", BeatsPerMinute(contact == .detected ? rate : 0), contact: contact, measuredAt: minute(m)),
                   atMinute: m)
        }
        #expect(h.timeline.isEmpty)
        #expect(h.engine.pattern == .allWell)
        #expect(h.engine.nextDeadline == nil)
    }
}
