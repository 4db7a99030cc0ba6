import Clocks
import Testing
@testable import Alarms

/// Timelines derived by hand from the documented chirp, `BuzzerRhythm` and `LEDSequencer` rhythms.
@Suite struct SelfTestPlayerTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }

    static func run(_ player: inout SelfTestPlayer) -> (buzzer: [BuzzerTransition], led: [LineTransition]) {
        var buzzer: [BuzzerTransition] = [], led: [LineTransition] = []
        while let deadline = player.nextDeadline {
            player.handleDeadline(at: deadline)
            buzzer += player.takeBuzzerTransitions()
            led += player.takeLEDTransitions()
        }
        #expect(player.isFinished)
        return (buzzer, led)
    }

    static func edges(from start: Int, _ durations: [Int]) -> [LineTransition] {
        var at = start
        return durations.enumerated().map { index, duration in
            defer { at += duration }
            return LineTransition(index.isMultiple(of: 2) ? .high : .low, at: ms(at))
        }
    }

    static func buzzer(_ edges: [LineTransition], tone: Int? = nil) -> [BuzzerTransition] {
        edges.map { BuzzerTransition($0.level, at: $0.at, toneHertz: $0.level == .high ? tone : nil) }
    }

    @Test func startupChirpIsAPipAndABlink() {
        var player = SelfTestPlayer(startupChirpAt: Self.ms(250), drive: .active)
        #expect(player.nextDeadline == Self.ms(250))
        let (buzzer, led) = Self.run(&player)
        #expect(buzzer == [BuzzerTransition(.high, at: Self.ms(250)), BuzzerTransition(.low, at: Self.ms(310))])
        #expect(led == [LineTransition(.high, at: Self.ms(250)), LineTransition(.low, at: Self.ms(550))])
    }

    @Test func passiveChirpCarriesATone() {
        var player = SelfTestPlayer(startupChirpAt: Self.ms(0), drive: .passive)
        #expect(Self.run(&player).buzzer == [BuzzerTransition(.high, at: Self.ms(0), toneHertz: 988), BuzzerTransition(.low, at: Self.ms(60))])
    }

    @Test func highPatternIsOneBurstWithItsLEDRhythm() {
        var player = SelfTestPlayer(testing: [AlarmTestPattern(.high)], at: Self.ms(0), drive: .active)
        let (buzzer, led) = Self.run(&player)
        let burst = [150, 100, 150, 100, 150, 350, 150, 100, 150, 1000, 150, 100, 150, 100, 150, 350, 150, 100, 150, 0]
        #expect(buzzer == Self.buzzer(Self.edges(from: 0, burst)))
        // 3.8 s of 200/300 flashes: the eighth flash (3.5–3.7 s) is the last whole one.
        #expect(led == Self.edges(from: 0, Array(repeating: [200, 300], count: 8).flatMap { $0 }))
    }

    @Test func patternsFollowEachOtherTwoSecondsApart() {
        let patterns = [AlarmTestPattern(.medium), AlarmTestPattern(.low, escalated: true)]
        var player = SelfTestPlayer(testing: patterns, at: Self.ms(1000), drive: .passive)
        let (buzzer, led) = Self.run(&player)
        // Medium: 1000–1900; low escalated from 3900: pip pair, 15 s, pip pair, ending at 20000.
        #expect(buzzer == Self.buzzer(Self.edges(from: 1000, [200, 150, 200, 150, 200, 2000]), tone: 784)
            + Self.buzzer(Self.edges(from: 3900, [200, 150, 200, 15000, 200, 150, 200, 0]), tone: 523))
        #expect(led == Self.edges(from: 1000, [700, 200]) + [LineTransition(.high, at: Self.ms(3900)), LineTransition(.low, at: Self.ms(20000))])
    }

    @Test func patternNamesRoundTrip() {
        #expect(AlarmTestPattern.all.map(\.name) == ["high", "high-escalated", "medium", "medium-escalated", "low", "low-escalated"])
        for pattern in AlarmTestPattern.all { #expect(AlarmTestPattern(name: pattern.name) == pattern) }
        for bad in ["", "High", "urgent", "low-", "escalated"] { #expect(AlarmTestPattern(name: bad) == nil) }
    }
}
