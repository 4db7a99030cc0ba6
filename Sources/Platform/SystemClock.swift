#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Clocks

/// The two clocks the sans-IO core is handed (it never reads one itself).
public enum SystemClock {
    /// CLOCK_MONOTONIC: for timers. Never jumps, so a time sync at boot (a Raspberry Pi has no
    /// real-time clock) cannot fire or postpone an alarm.
    public static func monotonicNow() -> MonotonicInstant {
        var now = timespec()
        // Cannot fail for CLOCK_MONOTONIC with a valid pointer (clock_gettime(2) lists only EFAULT/EINVAL).
        _ = clock_gettime(CLOCK_MONOTONIC, &now)
        return MonotonicInstant(nanoseconds: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
    }

    /// CLOCK_REALTIME: for dating readings; may jump when the clock is set.
    public static func wallNow() -> WallClockTime {
        var now = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &now)
        return WallClockTime(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }
}
