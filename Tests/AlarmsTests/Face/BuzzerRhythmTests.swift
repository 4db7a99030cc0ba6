import Clocks
import Testing
@testable import Alarms

/// Checks the envelopes against the ranges documented in `BuzzerRhythm` (IEC 60601-1-8 Table 4
/// as cited there) and against `AlarmPriority.pulsesPerBurst`.
@Suite struct BuzzerRhythmTests {
    static func pulses(_ train: PulseTrain) -> [Duration] { train.steps.filter { $0.level == .high }.map(\.duration) }
    static func gaps(_ train: PulseTrain) -> [Duration] { train.steps.filter { $0.level == .low }.map(\.duration) }

    @Test(arguments: AlarmPriority.allCases)
    func plainBurstHasThePriorityPulseCountAndAlternates(priority: AlarmPriority) {
        let train = BuzzerRhythm.train(for: priority, escalated: false)
        #expect(train.repeats)
        #expect(Self.pulses(train).count == priority.pulsesPerBurst)
        #expect(train.steps.first?.level == .high && train.steps.last?.level == .low)
        for (a, b) in zip(train.steps, train.steps.dropFirst()) { #expect(a.level != b.level) }
        #expect(Self.gaps(train).allSatisfy { $0 >= BuzzerRhythm.minimumGap })
    }

    @Test(arguments: AlarmPriority.allCases)
    func escalatedIsMoreInsistent(priority: AlarmPriority) {
        let plain = BuzzerRhythm.train(for: priority, escalated: false)
        let escalated = BuzzerRhythm.train(for: priority, escalated: true)
        #expect(escalated.cycleDuration < plain.cycleDuration)
        #expect(Self.pulses(escalated).count >= Self.pulses(plain).count)
        #expect(BuzzerRhythm.rank(of: .bursts(priority, escalated: true, kind: .urgentLow))
            == BuzzerRhythm.rank(of: .bursts(priority, escalated: false, kind: .urgentLow)) + 1)
    }

    @Test func timingsStayInsideTheStandardRanges() {
        for escalated in [false, true] {
            let high = BuzzerRhythm.train(for: .high, escalated: escalated)
            #expect(Self.pulses(high).allSatisfy { $0 >= .milliseconds(75) && $0 <= .milliseconds(200) })
            #expect(Self.gaps(high).dropLast().sorted() == [100, 100, 100, 100, 100, 100, 350, 350, 1000].map { .milliseconds($0) })
            #expect(Self.gaps(high).last! >= .milliseconds(2500) && Self.gaps(high).last! <= .seconds(15))
            let medium = BuzzerRhythm.train(for: .medium, escalated: escalated)
            #expect(Self.pulses(medium).allSatisfy { $0 >= .milliseconds(125) && $0 <= .milliseconds(250) })
            #expect(Self.gaps(medium).last! >= .milliseconds(2500) && Self.gaps(medium).last! <= .seconds(30))
            let low = BuzzerRhythm.train(for: .low, escalated: escalated)
            #expect((1...2).contains(Self.pulses(low).count))
            #expect(Self.gaps(low).last! >= .seconds(15))
        }
    }

    @Test func tonesRiseWithPriorityInsideTheStandardBand() {
        let tones = AlarmPriority.allCases.map(BuzzerRhythm.toneHertz(for:))
        #expect(tones == [523, 784, 988])
        #expect(tones.allSatisfy { (150...1000).contains($0) })
    }

    @Test func silenceRanksBelowEverything() {
        #expect(BuzzerRhythm.rank(of: .silent) < BuzzerRhythm.rank(of: .bursts(.low, escalated: false, kind: .glucose(.high))))
    }
}
