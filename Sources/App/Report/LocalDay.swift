import Clocks
import Readings

/// One local calendar day of sensor glucose, for the report's daily small multiples.
public struct LocalDay: Equatable, Sendable {
    /// One reading placed on its day.
    public struct Point: Equatable, Sendable {
        /// Minutes after local midnight, with the fraction (07:30:30 is 450.5).
        public var minuteOfDay: Double
        public var milligramsPerDeciliter: Double
    }

    /// Days since 1970-01-01 of the local date.
    public var dayNumber: Int64
    /// `YYYY-MM-DD`.
    public var date: String
    /// Ascending by time.
    public var points: [Point]

    /// Gaps longer than this break the day's line, so a lost signal is not drawn as a straight
    /// ramp (three missed 5-minute readings).
    public static let gapBreakingTheLine: Double = 20

    /// The `.glucose` readings grouped by local day (wall time + `utcOffset`), days ascending,
    /// points ascending; days without a reading are absent.
    public static func days<S: Sequence>(of readings: S, utcOffset: Duration) -> [LocalDay] where S.Element == RecordedReading {
        var byDay: [Int64: [(Int64, Double)]] = [:]
        for reading in readings {
            guard case let .glucose(concentration, _) = reading.value else { continue }
            let local = localMicroseconds(reading.wallTime, utcOffset: utcOffset)
            byDay[ISO8601.floorDivide(local, 86_400_000_000), default: []].append((local, concentration.milligramsPerDeciliter))
        }
        return byDay.keys.sorted().map { day in
            let points = byDay[day]!.sorted { $0.0 < $1.0 }.map { local, mgdL in
                Point(minuteOfDay: Double(local - day * 86_400_000_000) / 60_000_000, milligramsPerDeciliter: mgdL)
            }
            let (y, m, d) = WallClockTime.civil(fromDays: day)
            return LocalDay(dayNumber: day, date: "\(ISO8601.pad(y, 4))-\(ISO8601.pad(m, 2))-\(ISO8601.pad(d, 2))", points: points)
        }
    }

    /// The points split where the gap between neighbours exceeds `gapBreakingTheLine` minutes.
    public var segments: [[Point]] {
        var out: [[Point]] = []
        for point in points {
            if let last = out.last?.last, point.minuteOfDay - last.minuteOfDay <= Self.gapBreakingTheLine {
                out[out.count - 1].append(point)
            } else {
                out.append([point])
            }
        }
        return out
    }

    /// Whole minutes after local midnight, 0..<1440.
    static func minuteOfDay(_ time: WallClockTime, utcOffset: Duration) -> Int64 {
        let local = localMicroseconds(time, utcOffset: utcOffset)
        return (local - ISO8601.floorDivide(local, 86_400_000_000) * 86_400_000_000) / 60_000_000
    }

    static func localMicroseconds(_ time: WallClockTime, utcOffset: Duration) -> Int64 {
        time.microsecondsSinceEpoch + utcOffset.nanosecondsClamped / 60_000_000_000 * 60_000_000
    }
}
