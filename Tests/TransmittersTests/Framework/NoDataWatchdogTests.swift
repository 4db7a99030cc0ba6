import Clocks
import Testing
@testable import Transmitters

@Suite struct NoDataWatchdogTests {
    let t0 = MonotonicInstant(nanoseconds: 5_000_000_000)

    @Test func dueTimeoutAfterTheLastFeed() {
        var watchdog = NoDataWatchdog(timeout: .seconds(30))
        #expect(watchdog.deadline == nil)
        watchdog.feed(at: t0)  // feeding a disarmed watchdog does not arm it
        #expect(watchdog.deadline == nil)
        watchdog.arm(at: t0)
        #expect(watchdog.deadline == t0 + .seconds(30))
        watchdog.feed(at: t0 + .seconds(10))
        #expect(watchdog.since == t0 + .seconds(10))
        #expect(watchdog.deadline == t0 + .seconds(40))
    }

    @Test func expiresOnlyAtOrAfterTheDeadlineAndThenDisarms() {
        var watchdog = NoDataWatchdog(timeout: .seconds(30))
        watchdog.arm(at: t0)
        let early = watchdog.expire(at: t0 + .seconds(30) - .nanoseconds(1))
        #expect(!early)
        let due = watchdog.expire(at: t0 + .seconds(30))
        #expect(due)
        #expect(watchdog.deadline == nil)
        let again = watchdog.expire(at: t0 + .seconds(90))
        #expect(!again)
    }

    @Test func lateCheckStillExpires() {
        var watchdog = NoDataWatchdog(timeout: .seconds(30))
        watchdog.arm(at: t0)
        let late = watchdog.expire(at: t0 + .seconds(3600))
        #expect(late)
    }

    @Test func disarmCancels() {
        var watchdog = NoDataWatchdog(timeout: .seconds(30))
        watchdog.arm(at: t0)
        watchdog.disarm()
        #expect(watchdog.deadline == nil)
        let expired = watchdog.expire(at: t0 + .seconds(60))
        #expect(!expired)
    }
}
