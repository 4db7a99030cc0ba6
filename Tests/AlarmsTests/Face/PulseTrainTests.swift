import Clocks
import Testing
@testable import Alarms

@Suite struct PulseTrainTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }

    @Test func onOffMillisecondsAlternateFromOn() {
        let train = PulseTrain(onOffMilliseconds: [10, 20, 30], repeats: false)
        #expect(train.steps == [.init(.high, .milliseconds(10)), .init(.low, .milliseconds(20)), .init(.high, .milliseconds(30))])
        #expect(train.cycleDuration == .milliseconds(60))
    }

    @Test func zeroStepsAreDroppedAndAnEmptyRepeatingTrainStaysLow() {
        #expect(PulseTrain(onOffMilliseconds: [0, 5], repeats: false).steps == [.init(.low, .milliseconds(5))])
        let empty = PulseTrain(onOffMilliseconds: [], repeats: true)
        var player = PulseTrainPlayer(empty, startingAt: .zero)
        #expect(player.level == .low)
        #expect(player.advance(to: Self.ms(10_000_000)).isEmpty)
    }

    @Test func playerStampsScheduledInstantsAndMergesEqualLevels() {
        // Two high steps in a row make one pulse: no edge between them.
        let train = PulseTrain([.init(.high, .milliseconds(10)), .init(.high, .milliseconds(10)), .init(.low, .milliseconds(30))], repeats: true)
        var player = PulseTrainPlayer(train, startingAt: Self.ms(100))
        #expect(player.advance(to: Self.ms(205)) == [
            LineTransition(.low, at: Self.ms(120)), LineTransition(.high, at: Self.ms(150)),
            LineTransition(.low, at: Self.ms(170)), LineTransition(.high, at: Self.ms(200)),
        ])
        #expect(player.stepEndsAt == Self.ms(210))
    }

    @Test func nonRepeatingTrainEndsLow() {
        var player = PulseTrainPlayer(PulseTrain(onOffMilliseconds: [40], repeats: false), startingAt: .zero)
        #expect(player.level == .high)
        #expect(player.advance(to: Self.ms(1000)) == [LineTransition(.low, at: Self.ms(40))])
        #expect(player.stepEndsAt == nil && player.level == .low)
    }
}
