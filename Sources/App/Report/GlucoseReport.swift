import Clocks
import Readings

/// Everything the clinician's report shows (`vigil report [--days 14]`), computed from sensor
/// glucose over the `days` × 24 h ending at `end`: the consensus metrics, the AGP and one small
/// chart per local day. Sans-IO: the caller reads the history and the clock and passes both in.
public struct GlucoseReport: Equatable, Sendable {
    public var days: Int
    public var utcOffset: Duration
    /// When the report was made (the end of its period).
    public var end: WallClockTime
    public var statistics: ReportStatistics
    public var profile: AmbulatoryGlucoseProfile
    public var daily: [LocalDay]

    /// The period's start: `end` − `days` × 24 h.
    public var start: WallClockTime { statistics.start }

    /// Readings outside the period and other kinds than `.glucose` are ignored.
    public init<S: Sequence>(readings: S, end: WallClockTime, days: Int = 14, utcOffset: Duration) where S.Element == RecordedReading {
        let start = end - .seconds(Int64(max(days, 0)) * 86_400)
        let inPeriod = readings.filter { $0.kind == .glucose && $0.wallTime >= start && $0.wallTime < end }
        self.days = days
        self.utcOffset = utcOffset
        self.end = end
        statistics = ReportStatistics(readings: inPeriod, start: start, end: end)
        profile = AmbulatoryGlucoseProfile(readings: inPeriod, utcOffset: utcOffset)
        daily = LocalDay.days(of: inPeriod, utcOffset: utcOffset)
    }

    /// The report read from the history a page at a time (only the period's glucose is asked for).
    public init<Source: ReadingPageSource>(from source: inout Source, end: WallClockTime, days: Int = 14, utcOffset: Duration,
                                           pageSize: Int = 1000) throws {
        let filter = Self.filter(end: end, days: days)
        var readings: [RecordedReading] = []
        var cursor: ReadingCursor?
        repeat {
            let page = try source.page(matching: filter, after: cursor, limit: max(1, pageSize))
            readings += page.readings
            cursor = page.next
        } while cursor != nil
        self.init(readings: readings, end: end, days: days, utcOffset: utcOffset)
    }

    /// What a report of `days` ending at `end` reads: sensor glucose in `[end − days × 24 h, end)`.
    public static func filter(end: WallClockTime, days: Int) -> ExportFilter {
        ExportFilter(since: end - .seconds(Int64(max(days, 0)) * 86_400), until: end, kind: .glucose)
    }
}
