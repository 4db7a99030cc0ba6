/// A wall-clock time (CLOCK_REALTIME): what readings are dated with, and what a person reads.
///
/// Kept separate from `MonotonicInstant` on purpose: a Raspberry Pi has no real-time clock, so
/// the wall clock can jump when time is first synchronised, while timers must not.
public struct WallClockTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSinceEpoch: Int64

    public init(microsecondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = microsecondsSinceEpoch }
    public init(secondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = secondsSinceEpoch * 1_000_000 }

    public var secondsSinceEpoch: Int64 { microsecondsSinceEpoch / 1_000_000 }
    public var millisecondsSinceEpoch: Int64 { microsecondsSinceEpoch / 1_000 }

    public static func < (a: Self, b: Self) -> Bool { a.microsecondsSinceEpoch < b.microsecondsSinceEpoch }
    public static func + (a: Self, d: Duration) -> Self {
        Self(microsecondsSinceEpoch: a.microsecondsSinceEpoch + d.nanosecondsClamped / 1000)
    }
    public static func - (a: Self, d: Duration) -> Self {
        Self(microsecondsSinceEpoch: a.microsecondsSinceEpoch - d.nanosecondsClamped / 1000)
    }
    public static func - (a: Self, b: Self) -> Duration {
        .microseconds(a.microsecondsSinceEpoch - b.microsecondsSinceEpoch)
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T10:30:00.000Z`.
    public var iso8601: String {
        // Floor (not truncate) both the seconds and the milliseconds, so times before 1970 print
        // the calendar second they fall in.
        var seconds = microsecondsSinceEpoch / 1_000_000
        if microsecondsSinceEpoch < 0 && microsecondsSinceEpoch % 1_000_000 != 0 { seconds -= 1 }
        let ms = (microsecondsSinceEpoch - seconds * 1_000_000) / 1000
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secOfDay = seconds - days * 86400
        let (y, m, d) = Self.civil(fromDays: days)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secOfDay / 3600, 2)):\(pad(secOfDay / 60 % 60, 2)):\(pad(secOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    public var description: String { iso8601 }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days).
    public static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// A proleptic Gregorian date to days since 1970-01-01 (days_from_civil).
    public static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
