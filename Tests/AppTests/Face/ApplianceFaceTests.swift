import Alarms
import App
import Clocks
import Readings
import Testing

/// The engine and the face joined, on a virtual clock. Expected instants are worked out by hand
/// from the documented rhythms (high burst: 150 on / 100 off, a 1000 ms pause after pulse 5,
/// 8.8 s cycle; the chirp: buzzer 60 ms, LED 300 ms) and the button timings (a short press is
/// decided 430 ms after its release; a long one 3.03 s after its press).
@Suite struct ApplianceFaceTests {
    static func s(_ seconds: Double) -> MonotonicInstant { .zero + .milliseconds(Int64((seconds * 1000).rounded())) }

    static func glucose(_ mgdL: Double, at seconds: Double) -> AlarmEngine.Input {
        .glucose(AlarmEngine.GlucoseSample(device: "dexcom", concentration: GlucoseConcentration(milligramsPerDeciliter: mgdL),
                                           trend: nil, measuredAt: s(seconds), wallClockTime: nil))
    }

    static func engine() -> AlarmEngine { AlarmEngine(configuration: AlarmConfiguration(), now: .zero) }

    static func press(_ face: inout ApplianceFace<AlarmEngine>, at seconds: Double, holding: Double = 0.2) {
        face.receive(.pressed, at: s(seconds))
        face.receive(.released, at: s(seconds + holding))
    }

    /// Buzzer writes among outputs, as `(level, instant)`.
    static func buzzer(_ outputs: [ApplianceFace<AlarmEngine>.Output]) -> [String] {
        outputs.compactMap {
            if case let .face(timed) = $0, case .buzzer = timed.output { "\(timed)" } else { nil }
        }
    }

    @Test func bootChirpsThenShowsTheHeartbeat() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active, at: .zero)
        let backend = MemoryFaceBackend()
        face.handleDeadline(at: Self.s(0.5))
        #expect(face.flush(to: backend).isEmpty)
        #expect(backend.applied == [
            TimedFaceOutput(.led(.high), at: .zero), TimedFaceOutput(.buzzer(.high, toneHertz: nil), at: .zero),
            TimedFaceOutput(.buzzer(.low, toneHertz: nil), at: Self.s(0.06)),
            TimedFaceOutput(.led(.low), at: Self.s(0.38)), TimedFaceOutput(.led(.high), at: Self.s(0.5)),
        ])
    }

    @Test func shortPressSnoozesTheUrgentLowFor15MinutesThenItSoundsAgain() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active, at: .zero)
        face.receive(Self.glucose(50, at: 10), at: Self.s(10))
        #expect(face.face.pattern.buzzer == .bursts(.high, escalated: false, kind: .urgentLow))
        face.handleDeadline(at: Self.s(20))
        _ = face.takeOutputs()
        Self.press(&face, at: 20)
        face.receive(Self.glucose(50, at: 310), at: Self.s(310))
        face.receive(Self.glucose(50, at: 610), at: Self.s(610))
        face.handleDeadline(at: Self.s(920.63))
        let outputs = face.takeOutputs()
        // The second burst started at 18.8 s; its fifth pulse is 20.05-20.2 s; the press is
        // decided at 20.63 s, inside the burst's 1 s pause (20.2-21.2 s), so the buzzer stays
        // low until the snooze ends at 20.63 s + 15 min.
        #expect(Self.buzzer(outputs) == ["t+20.050s buzzer on", "t+20.200s buzzer off", "t+920.630s buzzer on"])
        #expect(face.takeAlarmEvents() == [
            AlarmEvent(time: Self.s(10), kind: .urgentLow, change: .raised(.high)),
            AlarmEvent(time: Self.s(20.63), kind: .urgentLow, change: .snoozed(until: Self.s(920.63))),
            AlarmEvent(time: Self.s(920.63), kind: .urgentLow, change: .reRaised),
        ])
        #expect(outputs.contains(.face(TimedFaceOutput(.gesture(ButtonEvent(.short, at: Self.s(20.63))), at: Self.s(20.63)))))
    }

    @Test func longPressAcknowledgesByDefault() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active, at: .zero)
        face.receive(Self.glucose(65, at: 10), at: Self.s(10))
        Self.press(&face, at: 20, holding: 3.5)
        #expect(face.takeAlarmEvents() == [
            AlarmEvent(time: Self.s(10), kind: .glucose(.low), change: .raised(.medium)),
            AlarmEvent(time: Self.s(23.03), kind: .glucose(.low), change: .acknowledged(until: Self.s(923.03))),
        ])
        #expect(face.face.pattern == AlarmPattern(buzzer: .silent, led: .snoozed))
    }

    @Test func longPressSnoozesAllWhenConfigured() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active,
                                 actions: ButtonActions(longPress: .snoozeAll(for: .seconds(2 * 3600))), at: .zero)
        face.receive(Self.glucose(65, at: 10), at: Self.s(10))
        Self.press(&face, at: 20, holding: 3.5)
        #expect(face.takeAlarmEvents().last == AlarmEvent(time: Self.s(23.03), kind: .glucose(.low), change: .snoozed(until: Self.s(7223.03))))
        // Urgent low is not covered by snooze all: the long press snoozes it as a short press
        // would, 15 min, and snooze all still holds for the lesser alarms.
        face.receive(Self.glucose(50, at: 310), at: Self.s(310))
        Self.press(&face, at: 320, holding: 3.5)
        #expect(face.takeAlarmEvents() == [
            AlarmEvent(time: Self.s(310), kind: .glucose(.low), change: .cleared),
            AlarmEvent(time: Self.s(310), kind: .urgentLow, change: .raised(.high)),
            AlarmEvent(time: Self.s(323.03), kind: .urgentLow, change: .snoozed(until: Self.s(1223.03))),
        ])
        // The second long press renewed snooze all from its own instant.
        #expect(face.alarms.state.snoozeAllUntil == Self.s(7523.03))
    }

    @Test func aPressWithNothingSoundingChangesNothing() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active, at: .zero)
        Self.press(&face, at: 20)
        Self.press(&face, at: 30, holding: 3.5)
        face.handleDeadline(at: Self.s(40))
        let notes = face.takeOutputs().filter { if case .face = $0 { false } else { true } }
        #expect(notes == [.nothingToSilence(.short, at: Self.s(20.63)), .nothingToSilence(.long, at: Self.s(33.03))])
        #expect(face.takeAlarmEvents().isEmpty)
        #expect(face.alarms.state == AlarmEngine.State())
    }

    @Test func doublePressRequestsAnExport() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .active, at: .zero)
        Self.press(&face, at: 20, holding: 0.1)
        Self.press(&face, at: 20.3, holding: 0.1)
        face.handleDeadline(at: Self.s(25))
        #expect(face.flush(to: MemoryFaceBackend()) == [.exportRequested(at: Self.s(20.43))])
    }

    @Test func heldAtBootPlaysEveryPatternAfterTheChirp() {
        var face = ApplianceFace(alarms: Self.engine(), drive: .passive, at: .zero, buttonPressedAtBoot: true)
        face.handleDeadline(at: Self.s(2.2))
        #expect(Self.buzzer(face.takeOutputs()) == [
            "t+0.000s buzzer on 988Hz", "t+0.060s buzzer off",
            "t+2.030s buzzer on 988Hz", "t+2.180s buzzer off",
        ])
        #expect(face.face.isTesting)
    }

    @Test func restoredAlarmSoundsAtOnceAfterARestart() throws {
        var before = Self.engine()
        before.receive(Self.glucose(50, at: 10), at: Self.s(10))
        let saved = before.state.text(at: Self.s(70))
        // The new boot's clock starts again at zero.
        let restored = AlarmEngine(configuration: AlarmConfiguration(), now: .zero,
                                   restoring: try AlarmEngine.State(text: saved, at: .zero))
        var face = ApplianceFace(alarms: restored, drive: .active, at: .zero)
        let backend = MemoryFaceBackend()
        face.flush(to: backend)
        #expect(backend.applied == [TimedFaceOutput(.led(.high), at: .zero), TimedFaceOutput(.buzzer(.high, toneHertz: nil), at: .zero)])
        #expect(!face.face.isTesting, "no chirp in front of an alarm")
    }

    @Test func theControllerLostFromApplianceEventsSoundsMedium() {
        var face = ApplianceFace(alarms: ApplianceAlarms(configuration: AlarmConfiguration(), at: .zero), drive: .active, at: .zero)
        // Up once, then gone: lost (never up would be "no controller").
        face.observe(.bluetooth(.poweredOn), monotonicNow: Self.s(1), wallNow: WallClockTime(secondsSinceEpoch: 1_800_000_000))
        face.observe(.bluetooth(.unavailable(reason: "no reply to Reset")), monotonicNow: Self.s(5), wallNow: WallClockTime(secondsSinceEpoch: 1_800_000_000))
        #expect(face.face.pattern.buzzer == .bursts(.medium, escalated: false, kind: .fault(.controllerLost)))
        let writes = face.takeOutputs().compactMap { if case let .face(t) = $0, t.at == Self.s(5) { "\(t.output)" } else { nil } }
        #expect(writes == ["buzzer on", "led on"])
    }
}
