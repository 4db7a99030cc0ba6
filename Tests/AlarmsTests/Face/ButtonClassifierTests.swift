import Clocks
import Testing
@testable import Alarms

/// Scripted edge sequences; expected times follow from the documented rules: 30 ms debounce,
/// long at press + 3 s + 30 ms, short at release + 400 ms + 30 ms, double at the second
/// release + 30 ms, held at boot at boot + 2 s + 30 ms.
@Suite struct ButtonClassifierTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }

    /// Feeds `edges` (milliseconds) in order, handling every deadline that falls before each
    /// edge and then all deadlines up to `until`, as an event loop on a virtual clock would.
    static func gestures(_ edges: [(ButtonEdge, Int)], pressedAtBoot: Bool = false, until end: Int = 60_000) -> [ButtonEvent] {
        var button = ButtonClassifier(bootedAt: .zero, pressedAtBoot: pressedAtBoot)
        var events: [ButtonEvent] = []
        func runDeadlines(until limit: MonotonicInstant) {
            while let deadline = button.nextDeadline, deadline <= limit {
                button.handleDeadline(at: deadline)
                events += button.takeEvents()
            }
        }
        for (edge, at) in edges {
            runDeadlines(until: ms(at))
            button.receive(edge, at: ms(at))
            events += button.takeEvents()
        }
        runDeadlines(until: ms(end))
        #expect(button.nextDeadline == nil, "nothing left to decide once the button is at rest")
        return events
    }

    @Test func shortPress() {
        #expect(Self.gestures([(.pressed, 1000), (.released, 1200)]) == [ButtonEvent(.short, at: Self.ms(1630))])
    }

    @Test func bounceOnPressAndReleaseCountsOnce() {
        let edges: [(ButtonEdge, Int)] = [
            (.pressed, 0), (.released, 2), (.pressed, 5), (.released, 8), (.pressed, 11),
            (.released, 500), (.pressed, 503), (.released, 506),
        ]
        // Settled release edge at 506 ms: short at 506 + 430.
        #expect(Self.gestures(edges) == [ButtonEvent(.short, at: Self.ms(936))])
    }

    @Test func glitchShorterThanDebounceIsNoPress() {
        #expect(Self.gestures([(.pressed, 100), (.released, 125)]).isEmpty)
    }

    @Test func longPressFiresWhileHeldAndReleaseAddsNothing() {
        #expect(Self.gestures([(.pressed, 0), (.released, 5000)]) == [ButtonEvent(.long, at: Self.ms(3030))])
    }

    @Test func releaseJustBeforeThreeSecondsIsShort() {
        #expect(Self.gestures([(.pressed, 0), (.released, 2990)]) == [ButtonEvent(.short, at: Self.ms(3420))])
    }

    @Test func doublePress() {
        let edges: [(ButtonEdge, Int)] = [(.pressed, 0), (.released, 100), (.pressed, 450), (.released, 550)]
        // Second press starts 350 ms after the first release.
        #expect(Self.gestures(edges) == [ButtonEvent(.double, at: Self.ms(580))])
    }

    @Test func secondPressJustOutsideTheWindowIsTwoShorts() {
        let edges: [(ButtonEdge, Int)] = [(.pressed, 0), (.released, 100), (.pressed, 510), (.released, 600)]
        #expect(Self.gestures(edges) == [ButtonEvent(.short, at: Self.ms(530)), ButtonEvent(.short, at: Self.ms(1030))])
    }

    @Test func shortThenHoldIsOnlyLong() {
        let edges: [(ButtonEdge, Int)] = [(.pressed, 0), (.released, 100), (.pressed, 300), (.released, 4000)]
        #expect(Self.gestures(edges) == [ButtonEvent(.long, at: Self.ms(3330))])
    }

    @Test func heldAtBoot() {
        #expect(Self.gestures([(.released, 6000)], pressedAtBoot: true) == [ButtonEvent(.heldAtBoot, at: Self.ms(2030))])
    }

    @Test func briefPressAtBootIsIgnoredAndTheNextPressCounts() {
        let edges: [(ButtonEdge, Int)] = [(.released, 1000), (.pressed, 3000), (.released, 3100)]
        #expect(Self.gestures(edges, pressedAtBoot: true) == [ButtonEvent(.short, at: Self.ms(3530))])
    }

    @Test func chatterThatNeverSettlesIsNoGesture() {
        // 10 ms edges for a second, ending released.
        let edges: [(ButtonEdge, Int)] = (0..<100).map { ($0.isMultiple(of: 2) ? .pressed : .released, $0 * 10) }
        #expect(Self.gestures(edges).isEmpty)
    }

    @Test func chatterEndingPressedStartsThePressAtTheLastEdge() {
        let edges: [(ButtonEdge, Int)] = (0..<51).map { ($0.isMultiple(of: 2) ? .pressed : .released, $0 * 10) }
        // Last edge: pressed at 500 ms, never released: long at 3530.
        #expect(Self.gestures(edges) == [ButtonEvent(.long, at: Self.ms(3530))])
    }

    @Test func missedReleaseDropsTheUntimeablePress() {
        let edges: [(ButtonEdge, Int)] = [(.pressed, 0), (.pressed, 1000), (.released, 1100)]
        #expect(Self.gestures(edges) == [ButtonEvent(.short, at: Self.ms(1530))])
    }

    @Test func missedReleaseAfterLongStartsAFreshPress() {
        let edges: [(ButtonEdge, Int)] = [(.pressed, 0), (.pressed, 5000), (.released, 5100)]
        #expect(Self.gestures(edges) == [ButtonEvent(.long, at: Self.ms(3030)), ButtonEvent(.short, at: Self.ms(5530))])
    }

    @Test func missedPressIsIgnored() {
        #expect(Self.gestures([(.released, 100), (.pressed, 200), (.released, 300)]) == [ButtonEvent(.short, at: Self.ms(730))])
    }

    @Test func lateHandlingStillDecidesInOrder() {
        var button = ButtonClassifier(bootedAt: .zero, pressedAtBoot: false)
        button.receive(.pressed, at: Self.ms(0))
        button.handleDeadline(at: Self.ms(50))
        button.receive(.released, at: Self.ms(100))
        // One late wake-up long after: the release settles (130) before the short is decided (530).
        button.handleDeadline(at: Self.ms(10_000))
        #expect(button.takeEvents() == [ButtonEvent(.short, at: Self.ms(530))])
        #expect(button.nextDeadline == nil)
    }
}
