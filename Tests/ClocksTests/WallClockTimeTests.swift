import Testing
@testable import Clocks

/// WallClockTime: ISO 8601 printing and the proleptic Gregorian conversions. Day numbers were
/// computed with Python's `datetime.date(y, m, d) - date(1970, 1, 1)`.
struct WallClockTimeTests {
    static let knownDays: [(year: Int64, month: Int64, day: Int64, days: Int64)] = [
        (1970, 1, 1, 0),
        (1969, 12, 31, -1),
        (1999, 12, 31, 10_956),
        (2000, 2, 29, 11_016),    // divisible by 400: leap
        (2000, 3, 1, 11_017),
        (2024, 2, 29, 19_782),
        (2026, 11, 22, 20_779),
        (2100, 3, 1, 47_541),     // 2100 is not leap: 28 Feb is followed by 1 Mar
        (1900, 3, 1, -25_508),
        (1600, 2, 29, -135_081),
        (1, 1, 1, -719_162),
    ]

    @Test(arguments: knownDays.indices)
    func civilDateConversions(_ i: Int) {
        let k = Self.knownDays[i]
        #expect(WallClockTime.days(year: k.year, month: k.month, day: k.day) == k.days)
        let civil = WallClockTime.civil(fromDays: k.days)
        #expect(civil.year == k.year)
        #expect(civil.month == k.month)
        #expect(civil.day == k.day)
    }

    @Test func leapYearsHaveTheRightLength() {
        func length(_ y: Int64) -> Int64 { WallClockTime.days(year: y + 1, month: 1, day: 1) - WallClockTime.days(year: y, month: 1, day: 1) }
        #expect(length(2024) == 366)
        #expect(length(2023) == 365)
        #expect(length(2000) == 366)
        #expect(length(1900) == 365)
        #expect(length(2100) == 365)
        #expect(length(1968) == 366)
        #expect(WallClockTime.days(year: 2100, month: 3, day: 1) - WallClockTime.days(year: 2100, month: 2, day: 28) == 1)
        #expect(WallClockTime.days(year: 2024, month: 3, day: 1) - WallClockTime.days(year: 2024, month: 2, day: 28) == 2)
    }

    /// Every day from 1600 to 2400 maps back to itself and days advance one at a time.
    @Test func civilRoundTripsAcrossFourCenturies() {
        let first = WallClockTime.days(year: 1600, month: 1, day: 1)
        let last = WallClockTime.days(year: 2400, month: 12, day: 31)
        var previous = WallClockTime.civil(fromDays: first - 1)
        for n in first...last {
            let c = WallClockTime.civil(fromDays: n)
            guard WallClockTime.days(year: c.year, month: c.month, day: c.day) == n else {
                Issue.record("day \(n) -> \(c) does not round-trip")
                return
            }
            let nextDay = c.day == previous.day + 1 && c.month == previous.month && c.year == previous.year
            let nextMonth = c.day == 1 && (c.month == previous.month + 1 && c.year == previous.year || c.month == 1 && previous.month == 12 && c.year == previous.year + 1)
            guard nextDay || nextMonth else {
                Issue.record("\(previous) is followed by \(c)")
                return
            }
            previous = c
        }
        #expect(previous.year == 2400 && previous.month == 12 && previous.day == 31)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_700_000_000_000_000, "2023-11-14T22:13:20.000Z"),
        (1_795_343_400_000_000, "2026-11-22T10:30:00.000Z"),  // the example in the doc comment
        (1_763_807_400_123_000, "2025-11-22T10:30:00.123Z"),
        (1_763_807_400_123_999, "2025-11-22T10:30:00.123Z"),  // microseconds truncate
        (951_782_400_000_000, "2000-02-29T00:00:00.000Z"),
        (4_102_444_799_999_000, "2099-12-31T23:59:59.999Z"),
        (-1_000, "1969-12-31T23:59:59.999Z"),
        (-1_000_000, "1969-12-31T23:59:59.000Z"),
        (-1_500_000, "1969-12-31T23:59:58.500Z"),
        (-946_728_000_000_000, "1940-01-01T12:00:00.000Z"),
        (-86_400_000_000, "1969-12-31T00:00:00.000Z"),
    ])
    func iso8601(_ microseconds: Int64, _ expected: String) {
        let t = WallClockTime(microsecondsSinceEpoch: microseconds)
        #expect(t.iso8601 == expected)
        #expect(t.description == expected)
    }

    /// Before 1970, a time that is not on a millisecond boundary: seconds are floored but
    /// the millisecond field is truncated toward zero, so the two disagree.
    @Test(arguments: [
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
        (-1_000_001, "1969-12-31T23:59:58.999Z"),
    ])
    func iso8601OfNegativeSubMillisecondTimes(_ microseconds: Int64, _ expected: String) {
        #expect(WallClockTime(microsecondsSinceEpoch: microseconds).iso8601 == expected)
    }

    @Test func secondsAndMilliseconds() {
        let t = WallClockTime(secondsSinceEpoch: 1_700_000_000)
        #expect(t.microsecondsSinceEpoch == 1_700_000_000_000_000)
        #expect(t.secondsSinceEpoch == 1_700_000_000)
        #expect(t.millisecondsSinceEpoch == 1_700_000_000_000)
        let u = WallClockTime(microsecondsSinceEpoch: 1_234_567)
        #expect(u.secondsSinceEpoch == 1)
        #expect(u.millisecondsSinceEpoch == 1_234)
    }

    @Test func arithmeticWithDurations() {
        let t = WallClockTime(secondsSinceEpoch: 1_000)
        #expect((t + .seconds(300)).secondsSinceEpoch == 1_300)
        #expect((t - .milliseconds(1)).microsecondsSinceEpoch == 999_999_000)
        #expect((t + .nanoseconds(1_999)).microsecondsSinceEpoch == 1_000_000_001, "nanoseconds truncate to microseconds")
        #expect((t + .seconds(300)) - t == .milliseconds(300_000))
        #expect(t - (t + .microseconds(7)) == .microseconds(-7))
        #expect(t < t + .microseconds(1))
        #expect(WallClockTime(secondsSinceEpoch: -1) < WallClockTime(secondsSinceEpoch: 0))
    }
}
