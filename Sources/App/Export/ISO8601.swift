import Clocks

/// ISO 8601 / RFC 3339 date-times with an explicit UTC offset (`2026-11-22T07:05:00+01:00`), the
/// form the issue asks for in exports ("ISO 8601 times with their offset"), and the parser for the
/// `since` / `until` arguments of `vigil export` and the serial `EXPORT` command.
///
/// Written here rather than with Foundation's formatter, which would add tens of megabytes to
/// the static binary. The calendar arithmetic is `WallClockTime.civil(fromDays:)`.
public enum ISO8601 {
    /// What was wrong with a date-time argument.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        /// Not one of the accepted shapes (see `parse`).
        case malformed(String)
        /// A field outside its calendar range (month 13, 25 o'clock, offset beyond ±18 h).
        case outOfRange(field: String, value: Int)

        public var description: String {
            switch self {
            case let .malformed(text): "'\(text)' is not an ISO 8601 date or date-time (e.g. 2026-11-22 or 2026-11-22T07:05:00+01:00)"
            case let .outOfRange(field, value): "\(field) \(value) is out of range"
            }
        }
    }

    /// `time` as local time at `utcOffset`, e.g. `2026-11-22T07:05:00+01:00`. Milliseconds are
    /// written only when not zero (`07:05:00.250+01:00`), so whole-second readings stay short.
    /// The offset is written to the minute (`Z` is never used, so every line has the same shape).
    public static func string(_ time: WallClockTime, utcOffset: Duration, alwaysMilliseconds: Bool = false) -> String {
        var writer = ExportWriter(capacity: 32)
        writer.write(time: time, offsetMinutes: offsetMinutes(utcOffset), alwaysMilliseconds: alwaysMilliseconds)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The offset in whole minutes (ISO 8601 offsets have no seconds), toward zero.
    static func offsetMinutes(_ utcOffset: Duration) -> Int64 { utcOffset.nanosecondsClamped / 60_000_000_000 }

    /// The local calendar date of `time` at `utcOffset`, e.g. `2026-11-22` (bundle folder names,
    /// report day labels).
    public static func date(_ time: WallClockTime, utcOffset: Duration) -> String {
        String(string(time, utcOffset: utcOffset).prefix(10))
    }

    /// Parses `YYYY-MM-DD` (local midnight), `YYYY-MM-DDTHH:MM[:SS[.fff]]` (local time), either
    /// followed by `Z` or `±HH:MM` / `±HHMM` (then that offset wins). Local means `defaultOffset`,
    /// the appliance's configured UTC offset. A space may stand for the `T` (RFC 3339 §5.6 note).
    public static func parse(_ text: String, defaultOffset: Duration) throws(ParseError) -> WallClockTime {
        let bytes = Array(text.utf8)
        var i = 0
        func number(_ width: Int, _ field: String) throws(ParseError) -> Int64 {
            guard i + width <= bytes.count else { throw .malformed(text) }
            var v: Int64 = 0
            for b in bytes[i..<i + width] {
                guard b >= 0x30 && b <= 0x39 else { throw .malformed(text) }
                v = v * 10 + Int64(b - 0x30)
            }
            i += width
            return v
        }
        func expect(_ c: UInt8) throws(ParseError) {
            guard i < bytes.count, bytes[i] == c else { throw .malformed(text) }
            i += 1
        }
        let year = try number(4, "year"); try expect(0x2D)
        let month = try number(2, "month"); try expect(0x2D)
        let day = try number(2, "day")
        guard (1...12).contains(month) else { throw .outOfRange(field: "month", value: Int(month)) }
        guard day >= 1, day <= daysIn(month: month, year: year) else { throw .outOfRange(field: "day", value: Int(day)) }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, micro: Int64 = 0
        if i < bytes.count, bytes[i] == 0x54 || bytes[i] == 0x20 || bytes[i] == 0x74 {  // T, space, t
            i += 1
            hour = try number(2, "hour"); try expect(0x3A)
            minute = try number(2, "minute")
            if i < bytes.count, bytes[i] == 0x3A {
                i += 1
                second = try number(2, "second")
                if i < bytes.count, bytes[i] == 0x2E {  // fraction: up to microseconds kept
                    i += 1
                    var digits = 0
                    while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                        if digits < 6 { micro = micro * 10 + Int64(bytes[i] - 0x30); digits += 1 }
                        i += 1
                    }
                    guard digits > 0 else { throw .malformed(text) }
                    for _ in digits..<6 { micro *= 10 }
                }
            }
            guard hour < 24 else { throw .outOfRange(field: "hour", value: Int(hour)) }
            guard minute < 60 else { throw .outOfRange(field: "minute", value: Int(minute)) }
            // 60 is a leap second; Vigil's clocks have none, so it is refused rather than guessed.
            guard second < 60 else { throw .outOfRange(field: "second", value: Int(second)) }
        }
        var offsetMinutes = defaultOffset.nanosecondsClamped / 60_000_000_000
        if i < bytes.count {
            switch bytes[i] {
            case 0x5A, 0x7A:  // Z
                i += 1
                offsetMinutes = 0
            case 0x2B, 0x2D:  // + or -
                let sign: Int64 = bytes[i] == 0x2D ? -1 : 1
                i += 1
                let h = try number(2, "offset hours")
                if i < bytes.count, bytes[i] == 0x3A { i += 1 }
                let m = try number(2, "offset minutes")
                guard h <= 18, m < 60 else { throw .outOfRange(field: "UTC offset", value: Int(sign * (h * 100 + m))) }
                offsetMinutes = sign * (h * 60 + m)
            default:
                throw .malformed(text)
            }
        }
        guard i == bytes.count else { throw .malformed(text) }
        let days = WallClockTime.days(year: year, month: month, day: day)
        let localSeconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return WallClockTime(microsecondsSinceEpoch: (localSeconds - offsetMinutes * 60) * 1_000_000 + micro)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
