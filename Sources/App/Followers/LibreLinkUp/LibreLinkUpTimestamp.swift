import Clocks

/// LibreLinkUp's timestamps, `"11/28/2025 3:20:00 AM"`: month/day/year, a 12-hour clock and
/// AM or PM (docs/followers.md "LibreLinkUp"). `FactoryTimestamp` is in UTC, `Timestamp` in the
/// patient's phone's local time, whose offset no field gives; Vigil reads `FactoryTimestamp`.
enum LibreLinkUpTimestamp {
    static func parse(_ text: String) -> WallClockTime? {
        let parts = text.split(separator: " ")
        guard parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, time.count == 3,
              let month = number(date[0], digits: 1...2), let day = number(date[1], digits: 1...2), let year = number(date[2], digits: 4...4),
              let hour = number(time[0], digits: 1...2), let minute = number(time[1], digits: 2...2), let second = number(time[2], digits: 2...2),
              (1...12).contains(month), (1...days(inMonth: month, year: year)).contains(day),
              (1...12).contains(hour), minute < 60, second < 60
        else { return nil }
        let hour24: Int64
        switch parts[2] {
        case "AM": hour24 = hour == 12 ? 0 : hour
        case "PM": hour24 = hour == 12 ? 12 : hour + 12
        default: return nil
        }
        let dayNumber = WallClockTime.days(year: year, month: month, day: day)
        return WallClockTime(secondsSinceEpoch: dayNumber * 86_400 + hour24 * 3600 + minute * 60 + second)
    }

    static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int64? {
        guard digits.contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }

    static func days(inMonth month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
