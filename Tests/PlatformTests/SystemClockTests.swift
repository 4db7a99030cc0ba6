import Clocks
import Glibc
import Testing
@testable import Platform

@Suite struct SystemClockTests {
    @Test func monotonicClockNeverGoesBack() {
        var previous = SystemClock.monotonicNow()
        for _ in 0..<10_000 {
            let now = SystemClock.monotonicNow()
            #expect(now >= previous)
            previous = now
        }
    }

    @Test func monotonicClockMatchesASleep() {
        let start = SystemClock.monotonicNow()
        usleep(20_000)
        let elapsed = SystemClock.monotonicNow() - start
        #expect(elapsed >= .milliseconds(20))
        #expect(elapsed < .seconds(2))
    }

    /// Cross-checked against time(2), a different route to CLOCK_REALTIME.
    @Test func wallClockAgreesWithTime() {
        let before = Int64(time(nil))
        let now = SystemClock.wallNow()
        let after = Int64(time(nil))
        #expect(now.secondsSinceEpoch >= before)
        #expect(now.secondsSinceEpoch <= after)
        // After this project was started: catches a unit mix-up (ms vs µs).
        #expect(now.secondsSinceEpoch > 1_750_000_000)
    }
}
