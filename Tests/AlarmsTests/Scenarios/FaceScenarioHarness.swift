import Clocks
import Readings
@testable import Alarms

/// A `ScenarioHarness` (the engine on a virtual clock, its events as `"<minute> <alarm>
/// <change>"` lines) with an `AlarmFace` showing `engine.pattern` after every engine step, the
/// way `ApplianceFace` joins them. It keeps what a scenario asserts:
/// - `timeline`: every engine event;
/// - `patterns`: every change of the pattern shown, as `"<minute> <buzzer> / <led>"`;
/// - `outputs`: every line write, so `firstBurst(atMinute:)` can give the exact buzzer and LED
///   transitions of the first seconds after a change (whole hours of edges are unreadable).
///
/// The button: `shortPress` and `longPress` press and release the face's button and feed the
/// gesture back as ApplianceFace does with its defaults (short: snooze the playing alarm 15
/// min, urgent low's and low's default; long: snooze all for `snoozeAllHours`).
struct FaceScenarioHarness {
    var engine: ScenarioHarness
    var face: AlarmFace
    var patterns: [String] = []
    var outputs: [TimedFaceOutput] = []
    var gestures: [String] = []
    var snoozeAllHours = 2

    init(_ configuration: AlarmConfiguration = AlarmConfiguration(watchedDevices: ["dexcom"]),
         drive: BuzzerSequencer.Drive = .active) {
        engine = ScenarioHarness(configuration)
        face = AlarmFace(drive: drive, bootedAt: .zero, showing: engine.engine.pattern)
        patterns.append("0 \(Self.describe(face.pattern))")
        collect()
    }

    var timeline: [String] { engine.timeline }
    var now: MonotonicInstant { engine.now }

    /// Serves engine deadlines up to minute `m` (showing the pattern after each), then the face's.
    mutating func advance(toMinute m: Double) {
        let target = minute(m)
        var steps = 0
        while let deadline = engine.engine.nextDeadline, deadline <= target, steps < 10_000 {
            steps += 1
            engine.now = max(engine.now, deadline)
            engine.engine.handleDeadline(at: engine.now)
            engine.record()
            show()
        }
        engine.now = max(engine.now, target)
        face.handleDeadline(at: engine.now)
        collect()
    }

    mutating func send(_ input: AlarmEngine.Input, atMinute m: Double) {
        advance(toMinute: m)
        engine.engine.receive(input, at: engine.now)
        engine.record()
        show()
    }

    mutating func glucose(_ mgdL: Double, atMinute m: Double, ageMinutes: Double = 0) {
        advance(toMinute: m)
        engine.glucose(mgdL, atMinute: m, ageMinutes: ageMinutes)
        show()
    }

    /// Readings every 5 minutes from `startMinute`.
    mutating func trace(_ values: [Double], fromMinute startMinute: Double) {
        for (i, value) in values.enumerated() { glucose(value, atMinute: startMinute + 5 * Double(i)) }
    }

    /// Pressed at minute `m` for 200 ms; the classifier decides 430 ms after the release.
    mutating func shortPress(atMinute m: Double) {
        button(.pressed, atMinute: m)
        button(.released, atMinute: m + 0.2 / 60)
        advance(toMinute: m + 0.63 / 60)
    }

    /// Held 3.5 s from minute `m`; the classifier decides at 3.03 s.
    mutating func longPress(atMinute m: Double) {
        button(.pressed, atMinute: m)
        advance(toMinute: m + 3.03 / 60)
        button(.released, atMinute: m + 3.5 / 60)
    }

    private mutating func button(_ edge: ButtonEdge, atMinute m: Double) {
        advance(toMinute: m)
        face.receive(edge, at: engine.now)
        collect()
    }

    private mutating func show() {
        face.show(engine.engine.pattern, at: engine.now)
        notePattern(at: engine.now)
        collect()
    }

    private mutating func collect() {
        while true {
            let batch = face.takeTimedOutputs()
            if batch.isEmpty { return }
            for timed in batch {
                if case let .gesture(event) = timed.output {
                    gestures.append("\(ScenarioHarness.minutes(event.at)) \(event.gesture)")
                    act(on: event)
                } else {
                    outputs.append(timed)
                }
            }
        }
    }

    private mutating func act(on event: ButtonEvent) {
        switch event.gesture {
        case .short:
            guard let playing = engine.engine.playing else { return }
            engine.engine.receive(.snooze(playing.kind, for: .seconds(15 * 60)), at: event.at)
        case .long:
            engine.engine.receive(.snoozeAll(for: .seconds(snoozeAllHours * 3600)), at: event.at)
        case .double, .heldAtBoot:
            return
        }
        engine.record()
        face.show(engine.engine.pattern, at: event.at)
        notePattern(at: event.at)
    }

    /// Records the pattern if it changed (called after the face has been shown it).
    private mutating func notePattern(at instant: MonotonicInstant) {
        let line = Self.describe(face.pattern)
        if let last = patterns.last, last.hasSuffix(" " + line) { return }
        patterns.append("\(ScenarioHarness.minutes(instant)) \(line)")
    }

    /// The buzzer and LED writes within `seconds` of minute `m`, as offsets in milliseconds:
    /// `"buzzer on+0 off+150 …"` and `"led on+0 off+200 …"`.
    func firstBurst(atMinute m: Double, seconds: Double = 4) -> (buzzer: String, led: String) {
        let start = minute(m), end = start + .milliseconds(Int64(seconds * 1000))
        var buzzer: [String] = [], led: [String] = []
        for timed in outputs where timed.at >= start && timed.at < end {
            let offset = (timed.at - start).nanosecondsClamped / 1_000_000
            switch timed.output {
            case let .buzzer(level, tone): buzzer.append("\(level)+\(offset)" + (tone.map { "@\($0)" } ?? ""))
            case let .led(level): led.append("\(level)+\(offset)")
            case .gesture: break
            }
        }
        return (buzzer.joined(separator: " "), led.joined(separator: " "))
    }

    static func describe(_ pattern: AlarmPattern) -> String {
        let buzzer: String
        switch pattern.buzzer {
        case .silent: buzzer = "silent"
        case let .bursts(priority, escalated, kind): buzzer = "\(priority)\(escalated ? "!" : "") \(kind.name)"
        }
        let led: String
        switch pattern.led {
        case .heartbeat: led = "heartbeat"
        case .searching: led = "searching"
        case .fault: led = "fault"
        case .snoozed: led = "snoozed"
        case let .alarm(priority): led = "alarm \(priority)"
        }
        return "\(buzzer) / \(led)"
    }
}

extension FaceScenarioHarness {
    /// Documented rhythms (BuzzerRhythm, LEDSequencer), as `firstBurst` prints them from a
    /// silent buzzer and a dark LED.
    static let highBurst = "on+0 off+150 on+250 off+400 on+500 off+650 on+1000 off+1150 on+1250 off+1400 "
        + "on+2400 off+2550 on+2650 off+2800 on+2900 off+3050 on+3400 off+3550 on+3650 off+3800"
    static let mediumBurst = "on+0 off+200 on+350 off+550 on+700 off+900"
    static let lowBurst = "on+0 off+200"
    static let lowEscalatedBurst = "on+0 off+200 on+350 off+550"
}
