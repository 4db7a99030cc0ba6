import Alarms
import App
import Clocks
import Testing

/// The console face's sans-IO half: keys become edges on a virtual clock (instants worked out
/// by hand from the documented holds: short 150 ms, long 3.2 s, double presses 250 ms apart),
/// and the status line is asserted character for character.
@Suite struct ConsoleFaceTests {
    static func ms(_ milliseconds: Int64) -> MonotonicInstant { .zero + .milliseconds(milliseconds) }

    static let urgentLow = AlarmPattern(buzzer: .bursts(.high, escalated: false, kind: .glucose(.urgentLow)), led: .alarm(.high))

    // MARK: Keys to edges

    @Test(arguments: [
        (UInt8(ascii: " "), ButtonGesture.short, [("pressed", 1000), ("released", 1150)]),
        (UInt8(ascii: "b"), .short, [("pressed", 1000), ("released", 1150)]),
        (UInt8(ascii: "l"), .long, [("pressed", 1000), ("released", 4200)]),
        (UInt8(ascii: "d"), .double, [("pressed", 1000), ("released", 1150), ("pressed", 1250), ("released", 1400)]),
    ])
    func keyBecomesTimedEdges(key: UInt8, gesture: ButtonGesture, expected: [(String, Int64)]) {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        #expect(face.receive(keys: [key], at: Self.ms(1000)) == [gesture])
        #expect(face.isPressing)
        var seen: [ConsoleFace.ScheduledEdge] = []
        // Jump from deadline to deadline, as the run loop does.
        while let due = face.nextDeadline { seen += face.dueEdges(at: due) }
        #expect(seen.map { "\($0.edge)" } == expected.map(\.0))
        #expect(seen.map(\.at) == expected.map { Self.ms($0.1) })
        #expect(!face.isPressing)
        #expect(face.nextDeadline == nil)
    }

    @Test func pressedEdgeIsDueAtOnceAndReleaseLater() {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        face.receive(keys: [UInt8(ascii: " ")], at: Self.ms(500))
        #expect(face.dueEdges(at: Self.ms(500)) == [.init(.pressed, at: Self.ms(500))])
        #expect(face.nextDeadline == Self.ms(650))
        #expect(face.dueEdges(at: Self.ms(649)) == [])
        #expect(face.dueEdges(at: Self.ms(700)) == [.init(.released, at: Self.ms(650))])
    }

    @Test func keysDuringAPressAndUnknownKeysAreIgnored() {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        // "x" is unknown; "l" starts a long press; the "d" in the same read and the space a
        // second later come while the button is held.
        #expect(face.receive(keys: Array("xld".utf8), at: Self.ms(0)) == [.long])
        #expect(face.receive(keys: [UInt8(ascii: " ")], at: Self.ms(1000)) == [])
        #expect(face.dueEdges(at: Self.ms(10_000)) == [.init(.pressed, at: Self.ms(0)), .init(.released, at: Self.ms(3200))])
        // Free again: the next key counts.
        #expect(face.receive(keys: [UInt8(ascii: "B")], at: Self.ms(10_000)) == [.short])
    }

    /// The made-up edges through the real classifier give the gesture the key stands for.
    @Test(arguments: [(UInt8(ascii: " "), ButtonGesture.short), (UInt8(ascii: "l"), .long), (UInt8(ascii: "d"), .double)])
    func edgesClassifyAsTheKeysGesture(key: UInt8, gesture: ButtonGesture) {
        var console = ConsoleFace(unicode: false, hasKeyboard: true)
        var face = AlarmFace(drive: .active, bootedAt: .zero)
        let start = Self.ms(5000)
        face.handleDeadline(at: start)
        _ = face.takeOutputs()
        console.receive(keys: [key], at: start)
        while let due = earliest(console.nextDeadline, face.nextDeadline), due < Self.ms(20_000) {
            for edge in console.dueEdges(at: due) { face.receive(edge.edge, at: edge.at) }
            face.handleDeadline(at: due)
        }
        let gestures = face.takeOutputs().compactMap { if case let .gesture(event) = $0 { event.gesture } else { nil } }
        #expect(gestures == [gesture])
    }

    // MARK: Rendering

    @Test func statusLineInUnicode() {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        #expect(face.statusLine() == "  ····  ○ led   keys: [space] press  [l] long  [d] double")
        _ = face.apply(.buzzer(.high, toneHertz: nil))
        _ = face.apply(.led(.high))
        _ = face.show(pattern: Self.urgentLow)
        #expect(face.statusLine() == "♪ BEEP  ● LED   urgent-low (high) sounding · keys: [space] press  [l] long  [d] double")
        _ = face.show(status: "snoozed urgent-low for 15 min")
        _ = face.apply(.buzzer(.low, toneHertz: nil))
        #expect(face.statusLine()
            == "  ····  ● LED   urgent-low (high) sounding · snoozed urgent-low for 15 min · keys: [space] press  [l] long  [d] double")
    }

    @Test func statusLineInASCIIWithoutKeyboard() {
        var face = ConsoleFace(unicode: false, hasKeyboard: false)
        _ = face.show(pattern: .allWell)
        #expect(face.statusLine() == "  ....  o led   all well")
        _ = face.apply(.buzzer(.high, toneHertz: 2730))
        _ = face.apply(.led(.high))
        _ = face.show(status: "low (medium)")
        #expect(face.statusLine() == "# BEEP  * LED   all well - low (medium)")
        #expect(face.buzzerToneHertz == 2730)
        _ = face.apply(.buzzer(.low, toneHertz: nil))
        #expect(face.buzzerToneHertz == nil)
    }

    @Test func statusLineIsCutToTheTerminalWidth() {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        _ = face.show(pattern: Self.urgentLow)
        let cut = face.statusLine(columns: 30)
        #expect(cut == "  ····  ○ led   urgent-low (h")
        #expect(cut.count == 29)
        // A line that fits is left alone.
        #expect(face.statusLine(columns: 500) == face.statusLine())
    }

    // MARK: Plain lines for a log

    @Test func patternAndStatusLinesOnlyWhenTheyChange() {
        var face = ConsoleFace(unicode: false, hasKeyboard: false)
        #expect(face.show(pattern: .allWell) == "face: all well")
        #expect(face.show(pattern: .allWell) == nil)
        #expect(face.show(pattern: Self.urgentLow) == "face: urgent-low (high) sounding")
        #expect(face.pattern == Self.urgentLow)
        #expect(face.show(status: "urgent low 52 mg/dL") == "face: urgent low 52 mg/dL")
        #expect(face.show(status: "urgent low 52 mg/dL") == nil)
        #expect(face.show(status: "") == nil)
        #expect(face.status == "")
    }

    @Test func lineWritesPrintNothingAndGesturesPrintALine() {
        var face = ConsoleFace(unicode: true, hasKeyboard: true)
        #expect(face.apply(.buzzer(.high, toneHertz: nil)) == nil)
        #expect(face.apply(.led(.high)) == nil)
        #expect(face.buzzer == .high && face.led == .high)
        #expect(face.apply(.gesture(ButtonEvent(.long, at: Self.ms(3030)))) == "button: long press")
        #expect(face.apply(.gesture(ButtonEvent(.double, at: Self.ms(3030)))) == "button: double press")
    }

    @Test(arguments: [
        (AlarmPattern(buzzer: .bursts(.medium, escalated: true, kind: .glucose(.low)), led: .alarm(.medium)),
         "low (medium) sounding, escalated"),
        (AlarmPattern(buzzer: .silent, led: .heartbeat), "all well"),
        (AlarmPattern(buzzer: .silent, led: .searching), "searching: a transmitter is not heard"),
        (AlarmPattern(buzzer: .silent, led: .fault), "appliance fault"),
        (AlarmPattern(buzzer: .silent, led: .snoozed), "alarm snoozed"),
        (AlarmPattern(buzzer: .silent, led: .alarm(.low)), "low alarm, buzzer silent"),
    ])
    func summaries(pattern: AlarmPattern, expected: String) {
        #expect(ConsoleFace.summary(of: pattern) == expected)
    }
}
