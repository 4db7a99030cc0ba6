import Clocks
import Testing
@testable import App

@Suite struct ISO8601Tests {
    // 1795327500 s = 2026-11-22T06:05:00Z (computed independently with Python's datetime).
    static let morning = WallClockTime(secondsSinceEpoch: 1_795_327_500)

    static let offsets: [(Duration, String)] = [
        (.seconds(3600), "2026-11-22T07:05:00+01:00"),
        (.zero, "2026-11-22T06:05:00+00:00"),
        (.seconds(-5 * 3600), "2026-11-22T01:05:00-05:00"),
        (.seconds(-7 * 3600), "2026-11-21T23:05:00-07:00"),  // crosses midnight backwards
        (.seconds(5 * 3600 + 45 * 60), "2026-11-22T11:50:00+05:45"),  // Nepal
        (.seconds(-(3 * 3600 + 30 * 60)), "2026-11-22T02:35:00-03:30"),  // Newfoundland
    ]

    @Test(arguments: offsets)
    func formatsWithTheOffset(_ offset: Duration, _ expected: String) {
        #expect(ISO8601.string(Self.morning, utcOffset: offset) == expected)
    }

    @Test func writesMillisecondsOnlyWhenPresentOrAsked() {
        let t = WallClockTime(microsecondsSinceEpoch: 1_795_327_500_250_900)
        #expect(ISO8601.string(t, utcOffset: .zero) == "2026-11-22T06:05:00.250+00:00")
        #expect(ISO8601.string(Self.morning, utcOffset: .zero, alwaysMilliseconds: true) == "2026-11-22T06:05:00.000+00:00")
        // Before 1970 the second is floored, not truncated: 1969-12-31T23:59:59.500Z.
        #expect(ISO8601.string(WallClockTime(microsecondsSinceEpoch: -500_000), utcOffset: .zero) == "1969-12-31T23:59:59.500+00:00")
    }

    @Test func dateIsTheLocalCalendarDay() {
        #expect(ISO8601.date(Self.morning, utcOffset: .seconds(-7 * 3600)) == "2026-11-21")
        #expect(ISO8601.date(Self.morning, utcOffset: .seconds(3600)) == "2026-11-22")
    }

    static let accepted: [(String, Int64)] = [
        ("2026-11-22T07:05:00+01:00", 1_795_327_500_000_000),
        ("2026-11-22T06:05:00Z", 1_795_327_500_000_000),
        ("2026-11-22t06:05:00z", 1_795_327_500_000_000),
        ("2026-11-22 07:05:00+0100", 1_795_327_500_000_000),
        ("2026-11-22T07:05+01:00", 1_795_327_500_000_000),
        ("2026-11-22T08:05", 1_795_327_500_000_000),  // local, default offset +02:00
        ("2026-11-22T06:05:00.25Z", 1_795_327_500_250_000),
        ("2026-11-22T06:05:00.1234567Z", 1_795_327_500_123_456),  // beyond µs is dropped
        ("2026-11-22", 1_795_298_400_000_000),  // local midnight at +02:00 = 2026-11-21T22:00Z
        ("2024-02-29T23:30:00Z", 1_709_249_400_000_000),  // leap day
    ]

    @Test(arguments: accepted)
    func parses(_ text: String, _ microseconds: Int64) throws {
        #expect(try ISO8601.parse(text, defaultOffset: .seconds(7200)).microsecondsSinceEpoch == microseconds)
    }

    @Test func roundTripsItsOwnOutput() throws {
        for offsetMinutes in [-600, -210, 0, 60, 345, 840] {
            let offset = Duration.seconds(offsetMinutes * 60)
            let text = ISO8601.string(Self.morning, utcOffset: offset)
            #expect(try ISO8601.parse(text, defaultOffset: .zero) == Self.morning)
        }
    }

    static let refused: [(String, ISO8601.ParseError)] = [
        ("", .malformed("")),
        ("yesterday", .malformed("yesterday")),
        ("2026-11", .malformed("2026-11")),
        ("2026-11-22T7:05", .malformed("2026-11-22T7:05")),
        ("2026-11-22T07:05:00+1", .malformed("2026-11-22T07:05:00+1")),
        ("2026-11-22T07:05:00.Z", .malformed("2026-11-22T07:05:00.Z")),
        ("2026-11-22T07:05:00Zjunk", .malformed("2026-11-22T07:05:00Zjunk")),
        ("2026-13-01", .outOfRange(field: "month", value: 13)),
        ("2026-00-01", .outOfRange(field: "month", value: 0)),
        ("2026-02-29", .outOfRange(field: "day", value: 29)),  // 2026 is not a leap year
        ("2026-04-31", .outOfRange(field: "day", value: 31)),
        ("2026-11-22T24:00", .outOfRange(field: "hour", value: 24)),
        ("2026-11-22T23:60", .outOfRange(field: "minute", value: 60)),
        ("2026-11-22T23:59:60Z", .outOfRange(field: "second", value: 60)),
        ("2026-11-22T23:59:00+19:00", .outOfRange(field: "UTC offset", value: 1900)),
    ]

    @Test(arguments: refused)
    func rejects(_ text: String, _ error: ISO8601.ParseError) {
        #expect(throws: error) { try ISO8601.parse(text, defaultOffset: .zero) }
    }
}
