import Clocks
import Testing
@testable import Alarms

/// Timelines below are derived by hand from the envelopes documented in `BuzzerRhythm`.
@Suite struct BuzzerSequencerTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }

    /// Runs the sequencer on a virtual clock, jumping to each deadline, until `end`.
    static func run(_ sequencer: inout BuzzerSequencer, until end: MonotonicInstant) -> [BuzzerTransition] {
        var edges = sequencer.takeTransitions()
        while let deadline = sequencer.nextDeadline, deadline <= end {
            sequencer.handleDeadline(at: deadline)
            edges += sequencer.takeTransitions()
        }
        return edges
    }

    /// Alternating high/low edges starting high at `start` from on/off millisecond durations.
    static func edges(from start: Int, _ durations: [Int], tone: Int? = nil) -> [BuzzerTransition] {
        var at = start
        return durations.enumerated().map { index, duration in
            defer { at += duration }
            return index.isMultiple(of: 2) ? BuzzerTransition(.high, at: ms(at), toneHertz: tone) : BuzzerTransition(.low, at: ms(at))
        }
    }

    static let highBurst = [150, 100, 150, 100, 150, 350, 150, 100, 150, 1000, 150, 100, 150, 100, 150, 350, 150, 100, 150]

    @Test func highPriorityIsTenPulsesInTheStandardGroupingThenFiveSeconds() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.high, escalated: false, kind: .urgentLow), at: Self.ms(0))
        let edges = Self.run(&buzzer, until: Self.ms(8800))
        // Burst 3.8 s long, silence 5 s, second burst at 8.8 s.
        #expect(edges == Self.edges(from: 0, Self.highBurst + [5000]) + [BuzzerTransition(.high, at: Self.ms(8800))])
        #expect(edges.filter { $0.level == .high }.count == 11)
    }

    @Test func escalatedHighRepeatsAfterTwoAndAHalfSeconds() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.high, escalated: true, kind: .urgentLow), at: Self.ms(0))
        let edges = Self.run(&buzzer, until: Self.ms(6300))
        #expect(edges == Self.edges(from: 0, Self.highBurst + [2500]) + [BuzzerTransition(.high, at: Self.ms(6300))])
    }

    @Test(arguments: [
        (AlarmPriority.medium, false, [200, 150, 200, 150, 200, 10000]),
        (.medium, true, [200, 150, 200, 150, 200, 5000]),
        (.low, false, [200, 20000]),
        (.low, true, [200, 150, 200, 15000]),
    ])
    func mediumAndLowTimelines(priority: AlarmPriority, escalated: Bool, durations: [Int]) {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(priority, escalated: escalated, kind: .glucose(.low)), at: Self.ms(1000))
        let cycle = durations.reduce(0, +)
        let edges = Self.run(&buzzer, until: Self.ms(1000 + cycle))
        #expect(edges == Self.edges(from: 1000, durations) + [BuzzerTransition(.high, at: Self.ms(1000 + cycle))])
        #expect(buzzer.nextDeadline == Self.ms(1000 + cycle + durations[0]))
    }

    @Test func passiveBuzzerCarriesATonePerPriority() {
        for (priority, hertz) in [(AlarmPriority.high, 988), (.medium, 784), (.low, 523)] {
            var buzzer = BuzzerSequencer(drive: .passive)
            buzzer.play(.bursts(priority, escalated: false, kind: .urgentLow), at: Self.ms(0))
            let edges = Self.run(&buzzer, until: Self.ms(200))
            let pulse = priority == .high ? 150 : 200
            #expect(edges == [BuzzerTransition(.high, at: Self.ms(0), toneHertz: hertz), BuzzerTransition(.low, at: Self.ms(pulse))])
        }
    }

    @Test func higherPriorityCutsThePulseAndStartsAfterTheMinimumGap() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(0))
        #expect(Self.run(&buzzer, until: Self.ms(399)) == Self.edges(from: 0, [200, 150, 200]))
        // Mid-pulse (the second pulse started at 350 ms): cut at 400, high burst at 500.
        buzzer.play(.bursts(.high, escalated: false, kind: .urgentLow), at: Self.ms(400))
        let edges = Self.run(&buzzer, until: Self.ms(800))
        #expect(edges == [BuzzerTransition(.low, at: Self.ms(400))] + Self.edges(from: 500, [150, 100, 150]))
    }

    @Test func higherPriorityBetweenPulsesStartsAtOnce() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.low, escalated: false, kind: .glucose(.high)), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(5000))
        buzzer.play(.bursts(.low, escalated: true, kind: .glucose(.high)), at: Self.ms(5000))
        #expect(Self.run(&buzzer, until: Self.ms(5400)) == Self.edges(from: 5000, [200, 150, 200]))
    }

    @Test func lowerPriorityWaitsForThePulseBoundary() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.high, escalated: false, kind: .urgentLow), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(260))
        // Second pulse sounds 250–400 ms; the medium burst follows after the minimum gap.
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(300))
        let edges = Self.run(&buzzer, until: Self.ms(1000))
        #expect(edges == [BuzzerTransition(.low, at: Self.ms(400))] + Self.edges(from: 500, [200, 150, 200]))
    }

    @Test func lowerPriorityInAGapStartsWhereTheNextPulseWouldHave() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.medium, escalated: true, kind: .glucose(.low)), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(2000))
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(2000))
        // The escalated gap ends at 5900; the calmer pattern starts there.
        let edges = Self.run(&buzzer, until: Self.ms(16850))
        #expect(edges == Self.edges(from: 5900, [200, 150, 200, 150, 200, 10000]) + [BuzzerTransition(.high, at: Self.ms(16800))])
    }

    @Test func silenceEndsTheSoundingPulseAndNothingMore() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.high, escalated: false, kind: .urgentLow), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(10))
        buzzer.play(.silent, at: Self.ms(100))
        #expect(Self.run(&buzzer, until: Self.ms(60000)) == [BuzzerTransition(.low, at: Self.ms(150))])
        #expect(buzzer.nextDeadline == nil)
        #expect(buzzer.level == .low)
    }

    @Test func silenceBetweenPulsesIsImmediateAtTheBoundary() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.low, escalated: false, kind: .glucose(.high)), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(1000))
        buzzer.play(.silent, at: Self.ms(1000))
        #expect(Self.run(&buzzer, until: Self.ms(60000)).isEmpty)
        #expect(buzzer.nextDeadline == nil)
    }

    @Test func sameRankOtherKindKeepsTheRhythm() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(0))
        _ = Self.run(&buzzer, until: Self.ms(250))
        buzzer.play(.bursts(.medium, escalated: false, kind: .signalLoss("dexcom")), at: Self.ms(250))
        #expect(Self.run(&buzzer, until: Self.ms(750)) == Self.edges(from: 350, [200, 150, 200]))
        #expect(buzzer.sounding == .bursts(.medium, escalated: false, kind: .signalLoss("dexcom")))
    }

    @Test func lateDeadlineStillStampsScheduledInstants() {
        var buzzer = BuzzerSequencer(drive: .active)
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(0))
        buzzer.handleDeadline(at: Self.ms(1000))
        #expect(buzzer.takeTransitions() == Self.edges(from: 0, [200, 150, 200, 150, 200, 10000]))
    }

    @Test func passiveToneFollowsTheNewPriorityAndAnotherRiseDuringTheGapWaitsForIt() {
        var buzzer = BuzzerSequencer(drive: .passive)
        buzzer.play(.bursts(.low, escalated: false, kind: .glucose(.high)), at: Self.ms(0))
        #expect(Self.run(&buzzer, until: Self.ms(50)) == [BuzzerTransition(.high, at: Self.ms(0), toneHertz: 523)])
        buzzer.play(.bursts(.medium, escalated: false, kind: .glucose(.low)), at: Self.ms(100))
        // Still inside the minimum gap after the cut at 100 ms: high waits until 200 ms.
        buzzer.play(.bursts(.high, escalated: false, kind: .urgentLow), at: Self.ms(150))
        #expect(Self.run(&buzzer, until: Self.ms(400)) == [
            BuzzerTransition(.low, at: Self.ms(100)),
            BuzzerTransition(.high, at: Self.ms(200), toneHertz: 988), BuzzerTransition(.low, at: Self.ms(350)),
        ])
    }
}
