import Testing
@testable import Clocks

/// MonotonicInstant arithmetic, Duration conversions and `earliest`, the pieces every state
/// machine's `nextDeadline` is built from.
struct MonotonicInstantTests {
    static func at(_ ns: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: ns) }

    @Test func addingAndSubtractingDurations() {
        let t = Self.at(1_000)
        #expect((t + .seconds(30)).nanoseconds == 30_000_001_000)
        #expect((t + .milliseconds(5)).nanoseconds == 5_001_000)
        #expect((t + .microseconds(3)).nanoseconds == 4_000)
        #expect((t + .nanoseconds(1)).nanoseconds == 1_001)
        #expect((t - .nanoseconds(2_000)).nanoseconds == -1_000)
        #expect((t + .milliseconds(-1)).nanoseconds == -999_000)

        var u = MonotonicInstant.zero
        u += .seconds(2)
        u += .milliseconds(500)
        #expect(u.nanoseconds == 2_500_000_000)
    }

    @Test func differenceIsADuration() {
        #expect(Self.at(2_500_000_000) - Self.at(1_000_000_000) == .milliseconds(1_500))
        #expect(Self.at(0) - Self.at(1) == .nanoseconds(-1))
        let t = Self.at(123_456_789)
        #expect((t + .seconds(30)) - t == .seconds(30))
    }

    @Test func orderingAndEquality() {
        #expect(Self.at(1) < Self.at(2))
        #expect(!(Self.at(2) < Self.at(2)))
        #expect(Self.at(-5) < .zero)
        #expect(Self.at(7) == Self.at(7))
        #expect([Self.at(3), Self.at(-1), Self.at(2)].sorted() == [Self.at(-1), Self.at(2), Self.at(3)])
        #expect(Set([Self.at(1), Self.at(1), Self.at(2)]).count == 2)
    }

    @Test(arguments: [
        (Duration.seconds(1), Int64(1_000_000_000)),
        (.milliseconds(1_500), 1_500_000_000),
        (.milliseconds(-1_500), -1_500_000_000),
        (.nanoseconds(-1), -1),
        (.microseconds(7), 7_000),
        (.zero, 0),
    ])
    func nanosecondsClamped(_ d: Duration, _ expected: Int64) {
        #expect(d.nanosecondsClamped == expected)
    }

    @Test func nanosecondsClampedSaturates() {
        #expect(Duration.seconds(Int64.max).nanosecondsClamped == .max)
        #expect(Duration.seconds(Int64.min).nanosecondsClamped == .min)
        // 9_223_372_036 s fits in Int64 nanoseconds; adding the fraction overflows.
        #expect((Duration.seconds(9_223_372_036) + .milliseconds(999)).nanosecondsClamped == .max)
        #expect(Duration.nanoseconds(Int64.max).nanosecondsClamped == .max)
    }

    /// `nanosecondsClamped` saturates, but `+` then wraps (`&+`), so a "practically never"
    /// deadline lands in the distant past and would fire at once.
    @Test func addingAHugeDurationDoesNotWrapIntoThePast() {
        let now = Self.at(1_000_000_000)
        #expect(now + .seconds(Int64.max) > now)
    }

    @Test func millisecondsAndSecondsAsDouble() {
        #expect(Duration.milliseconds(1_500).milliseconds == 1_500)
        #expect(Duration.milliseconds(1_500).seconds == 1.5)
        #expect(Duration.microseconds(250).milliseconds == 0.25)
        #expect(Duration.seconds(-2).seconds == -2)
    }

    @Test func descriptionShowsSecondsWithMilliseconds() {
        #expect(MonotonicInstant.zero.description == "t+0.000s")
        #expect(Self.at(1_234_567_890).description == "t+1.234s")
        #expect(Self.at(61_005_000_000).description == "t+61.005s")
        #expect(Self.at(999_999).description == "t+0.000s", "sub-millisecond parts are truncated")
    }

    /// Virtual clocks in tests may start at zero and subtract a timeout: the log line must
    /// still be readable.
    @Test func descriptionOfANegativeInstant() {
        #expect(Self.at(-1_500_000_000).description == "t-1.500s")
    }

    @Test func earliestOfOptionalDeadlines() {
        #expect(earliest() == nil)
        #expect(earliest(nil, nil) == nil)
        #expect(earliest(Self.at(5)) == Self.at(5))
        #expect(earliest(nil, Self.at(5), nil) == Self.at(5))
        #expect(earliest(Self.at(5), Self.at(3), Self.at(4)) == Self.at(3))
        #expect(earliest(Self.at(3), nil, Self.at(-2)) == Self.at(-2))
        #expect(earliest(Self.at(3), Self.at(3)) == Self.at(3))
    }

    @Test func earliestOfASequence() {
        let deadlines: [MonotonicInstant?] = [nil, Self.at(9), Self.at(7), nil, Self.at(8)]
        #expect(earliest(deadlines) == Self.at(7))
        #expect(earliest([MonotonicInstant?]()) == nil)
        #expect(earliest(deadlines.lazy.filter { $0 != Self.at(7) }) == Self.at(8))
    }
}
