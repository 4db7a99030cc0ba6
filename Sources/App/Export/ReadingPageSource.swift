import Readings

/// Where exports pull readings from: the shell implements it over the history. Pull-based and
/// paged, so an export of a year holds one page in memory, and a serial client that disconnects
/// mid-export costs nothing: the shell drops the session and no further page is asked for.
/// `ExportStream`, `GlucoseReport(from:...)`, `USBBundle.write` and `SerialExportSession` all
/// read through it.
public protocol ReadingPageSource {
    /// Up to `limit` readings matching `filter`, oldest first, continuing after `cursor` (from
    /// the first match when nil). The page's `next` is nil when nothing follows it.
    mutating func page(matching filter: ExportFilter, after cursor: ReadingCursor?, limit: Int) throws -> ReadingPage
}

/// Where a paged read stopped: opaque to the exporters, meaningful to the source (e.g. the last
/// SQLite rowid returned, for keyset pagination that stays fast deep into a year).
public struct ReadingCursor: Hashable, Sendable {
    public var rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }
}

/// One page of readings and where the next one starts.
public struct ReadingPage: Equatable, Sendable {
    public var readings: [RecordedReading]
    /// Nil at the end of the export.
    public var next: ReadingCursor?

    public init(readings: [RecordedReading], next: ReadingCursor?) {
        self.readings = readings
        self.next = next
    }
}
