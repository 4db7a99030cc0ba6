import Clocks
import Testing
@testable import Alarms

/// Timelines derived by hand from the rhythm table in `LEDSequencer`.
@Suite struct LEDSequencerTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }

    static func run(_ led: inout LEDSequencer, until end: MonotonicInstant) -> [LineTransition] {
        var edges = led.takeTransitions()
        while let deadline = led.nextDeadline, deadline <= end {
            led.handleDeadline(at: deadline)
            edges += led.takeTransitions()
        }
        return edges
    }

    static func edges(from start: Int, _ durations: [Int]) -> [LineTransition] {
        var at = start
        return durations.enumerated().map { index, duration in
            defer { at += duration }
            return LineTransition(index.isMultiple(of: 2) ? .high : .low, at: ms(at))
        }
    }

    @Test(arguments: [
        (AlarmPattern.LED.heartbeat, [80, 120, 80, 2720]),
        (.searching, [150, 850]),
        (.snoozed, [50, 4950]),
        (.fault, [750, 250, 250, 250, 250, 1250]),
        (.alarm(.high), [200, 300]),
        (.alarm(.medium), [700, 1050]),
    ])
    func rhythmRepeatsExactly(led: AlarmPattern.LED, durations: [Int]) {
        var sequencer = LEDSequencer()
        sequencer.show(led, at: Self.ms(500))
        let cycle = durations.reduce(0, +)
        let edges = Self.run(&sequencer, until: Self.ms(500 + 2 * cycle))
        #expect(edges == Self.edges(from: 500, durations + durations) + [LineTransition(.high, at: Self.ms(500 + 2 * cycle))])
    }

    @Test func lowPriorityAlarmIsSteadyOn() {
        var sequencer = LEDSequencer()
        sequencer.show(.alarm(.low), at: Self.ms(0))
        #expect(Self.run(&sequencer, until: Self.ms(10_000_000)) == [LineTransition(.high, at: Self.ms(0))])
        #expect(sequencer.level == .high)
    }

    @Test func everyStateHasItsOwnRhythm() {
        let states: [AlarmPattern.LED] = [.heartbeat, .searching, .snoozed, .fault, .alarm(.high), .alarm(.medium), .alarm(.low)]
        #expect(Set(states.map(LEDSequencer.train(for:))).count == states.count)
    }

    @Test func changeShowsAtOnceAndRepeatingKeepsTheRhythm() {
        var sequencer = LEDSequencer()
        sequencer.show(.heartbeat, at: Self.ms(0))
        _ = Self.run(&sequencer, until: Self.ms(1000))
        sequencer.show(.heartbeat, at: Self.ms(1000))
        #expect(sequencer.nextDeadline == Self.ms(3000))
        // Mid-heartbeat pause, high alarm: on at once.
        sequencer.show(.alarm(.high), at: Self.ms(1234))
        #expect(Self.run(&sequencer, until: Self.ms(1734)) == Self.edges(from: 1234, [200, 300, 0]))
        // Mid-flash, snoozed: the flash restarts as the snoozed blink (already on, so no edge).
        sequencer.show(.snoozed, at: Self.ms(1800))
        #expect(Self.run(&sequencer, until: Self.ms(6850)) == [
            LineTransition(.low, at: Self.ms(1850)), LineTransition(.high, at: Self.ms(6800)), LineTransition(.low, at: Self.ms(6850)),
        ])
    }
}
