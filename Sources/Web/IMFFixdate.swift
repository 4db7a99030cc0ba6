import Clocks

extension HTTP {
    /// A wall-clock time as the `Date` field writes it, IMF-fixdate (RFC 9110 §5.6.7):
    /// `Sun, 06 Nov 1994 08:49:37 GMT`. The owner makes it from the wall clock and hands it
    /// to `Server.date`: the core itself never reads a clock.
    public static func imfFixdate(_ time: WallClockTime) -> String {
        let seconds = time.microsecondsSinceEpoch >= 0 || time.microsecondsSinceEpoch % 1_000_000 == 0
            ? time.microsecondsSinceEpoch / 1_000_000 : time.microsecondsSinceEpoch / 1_000_000 - 1
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = WallClockTime.civil(fromDays: days)
        // 1970-01-01 was a Thursday.
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(paddedYear) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
