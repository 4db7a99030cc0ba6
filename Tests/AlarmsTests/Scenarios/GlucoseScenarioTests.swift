import Clocks
import Readings
import Testing
@testable import Alarms

/// Scripted glucose traces through the engine and the face on a virtual clock (the
/// alarm scenario suite). Each asserts the whole timeline of engine events, every pattern
/// change with its minute (`!` marks the escalated form), and the exact buzzer and LED writes
/// of the first seconds after the changes, as millisecond offsets (`H.highBurst` and the like
/// are the documented rhythms written out).
///
/// Two sequencer rules explain the bursts that do not start at +0: a more insistent pattern
/// cuts in at once but keeps 100 ms of silence after the last pulse; a less insistent one
/// (de-escalation, a lower priority, silence) waits for the next pulse boundary.
@Suite struct GlucoseScenarioTests {
    typealias H = FaceScenarioHarness

    @Test func slowOvernightLow() {
        var h = H()
        // -0.6 mg/dL/min from 100: low (70) at minute 50, a forecast of 55 within 20 min at 55,
        // urgent low at 75; treated at 85; back above 60 (55 + 5 hysteresis) at 95.
        h.trace([100, 97, 94, 91, 88, 85, 82, 79, 76, 73, 70, 67, 64, 61, 58, 55, 53, 53, 56, 62, 70, 80], fromMinute: 0)
        h.advance(toMinute: 106)
        #expect(h.timeline == [
            "50 low raised medium", "55 low escalated", "55 urgent-low-soon raised high", "60 urgent-low-soon escalated",
            "75 urgent-low-soon cleared", "75 low cleared", "75 urgent-low raised high", "80 urgent-low escalated",
            "95 urgent-low cleared", "95 low raised medium", "100 low escalated", "105 low cleared",
        ])
        #expect(h.patterns == [
            "0 silent / heartbeat", "50 medium low / alarm medium", "55 medium! low / alarm medium",
            "55 high urgent-low-soon / alarm high", "60 high! urgent-low-soon / alarm high", "75 high urgent-low / alarm high",
            "80 high! urgent-low / alarm high", "95 medium low / alarm medium", "100 medium! low / alarm medium",
            "105 silent / heartbeat",
        ])
        #expect(h.firstBurst(atMinute: 50) == (H.mediumBurst, "on+0 off+700 on+1750 off+2450 on+3500"))
        // At 55 the escalation starts a medium pulse and the forecast, at the same instant,
        // cuts it: a zero-length write pair, then the high burst after the 100 ms gap.
        #expect(h.firstBurst(atMinute: 55, seconds: 1.2).buzzer == "on+0 off+0 on+100 off+250 on+350 off+500 on+600 off+750 on+1100")
        #expect(h.firstBurst(atMinute: 55, seconds: 1.2).led == "on+0 off+200 on+500 off+700 on+1000")
        // Escalation at 60 falls 50 ms after a pulse (in the 350 ms split): 100 ms gap kept.
        #expect(h.firstBurst(atMinute: 60, seconds: 1).buzzer == "on+50 off+200 on+300 off+450 on+550 off+700")
        #expect(h.firstBurst(atMinute: 80).buzzer == H.highBurst)
        #expect(h.firstBurst(atMinute: 100).buzzer == H.mediumBurst)
        #expect(h.firstBurst(atMinute: 105).buzzer == "")
    }

    @Test func fastDrop() {
        var h = H(drive: .passive)
        // About -3 mg/dL/min: the forecast raises "urgent low soon" 15 minutes before urgent low.
        h.trace([140, 128, 114, 98, 82, 66, 52, 46, 49, 60, 78, 95], fromMinute: 0)
        h.advance(toMinute: 56)
        #expect(h.timeline == [
            "15 urgent-low-soon raised high", "20 urgent-low-soon escalated", "25 low raised medium", "30 low escalated",
            "30 urgent-low-soon cleared", "30 low cleared", "30 urgent-low raised high", "35 urgent-low escalated",
            "50 urgent-low cleared",
        ])
        #expect(h.patterns == [
            "0 silent / heartbeat", "15 high urgent-low-soon / alarm high", "20 high! urgent-low-soon / alarm high",
            "30 high urgent-low / alarm high", "35 high! urgent-low / alarm high", "50 silent / heartbeat",
        ])
        let tone = "@988"
        #expect(h.firstBurst(atMinute: 15, seconds: 1.2).buzzer
                == "on+0\(tone) off+150 on+250\(tone) off+400 on+500\(tone) off+650 on+1000\(tone) off+1150")
        #expect(h.firstBurst(atMinute: 15, seconds: 1.2).led == "on+0 off+200 on+500 off+700 on+1000")
        #expect(h.firstBurst(atMinute: 35, seconds: 1.2).buzzer
                == "on+0\(tone) off+150 on+250\(tone) off+400 on+500\(tone) off+650 on+1000\(tone) off+1150")
        #expect(h.firstBurst(atMinute: 50).buzzer == "")
    }

    @Test func compressionLowThatRecovers() {
        var h = H()
        // Lying on the sensor: one reading far below the others. Urgent low must sound on it
        // (a single reading at 48 may be real); the robust trend ignores it, so no forecast
        // alarm; the next reading clears it.
        h.trace([118, 120, 119, 121, 122, 48, 119, 120], fromMinute: 0)
        h.advance(toMinute: 36)
        #expect(h.timeline == ["25 urgent-low raised high", "30 urgent-low escalated", "30 urgent-low cleared"])
        #expect(h.patterns == [
            "0 silent / heartbeat", "25 high urgent-low / alarm high", "30 high! urgent-low / alarm high", "30 silent / heartbeat",
        ])
        #expect(h.firstBurst(atMinute: 25) == (H.highBurst, "on+0 off+200 on+500 off+700 on+1000 off+1200 on+1500 off+1700 "
                                               + "on+2000 off+2200 on+2500 off+2700 on+3000 off+3200 on+3500 off+3700"))
        // The escalation (deadline) and the clearing reading share minute 30: the escalated
        // burst's first pulse has started, and silence waits for its end at 150 ms.
        #expect(h.firstBurst(atMinute: 30).buzzer == "on+0 off+150")
        #expect(h.firstBurst(atMinute: 30, seconds: 0.5).led == "on+0 off+80 on+200 off+280")
    }

    @Test func highAfterAMeal() {
        var h = H()
        h.trace([110, 135, 165, 195, 225, 248, 262, 276, 284, 279, 266, 252, 246, 240, 228], fromMinute: 0)
        h.advance(toMinute: 71)
        // 246 at minute 60 is below 250 but within the 5 mg/dL hysteresis: still high.
        #expect(h.timeline == ["30 high raised low", "35 high escalated", "65 high cleared"])
        #expect(h.patterns == ["0 silent / heartbeat", "30 low high / alarm low", "35 low! high / alarm low", "65 silent / heartbeat"])
        // Low priority: one pulse and a steady LED; escalated: two pulses.
        #expect(h.firstBurst(atMinute: 30) == (H.lowBurst, "on+0"))
        #expect(h.firstBurst(atMinute: 35) == (H.lowEscalatedBurst, ""))
        #expect(h.firstBurst(atMinute: 65, seconds: 0.5) == ("", "off+80 on+200 off+280"))
    }
}
