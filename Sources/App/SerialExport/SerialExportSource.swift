import Readings

/// Where a `SerialExportSession` pulls its data from: the shell implements it over the history.
/// Pull-based and paged, so an export of a year holds one page in memory, and a client that
/// disconnects mid-export costs nothing: the shell drops the session and no page is asked for.
public protocol SerialExportSource {
    /// Up to `limit` readings matching `filter`, oldest first, continuing after `cursor` (from
    /// the first match when nil). The page's `next` is nil when nothing follows it.
    mutating func page(matching filter: ExportFilter, after cursor: ReadingCursor?, limit: Int) throws -> ReadingPage

    /// The body of the `STATUS` answer, one line each (e.g. `readings 105120`,
    /// `newest 2026-11-22T07:05:00+01:00`). Lines should not start with `.`; if one does it is
    /// dot-stuffed like any body line.
    mutating func statusLines() throws -> [String]
}

/// Where a paged read stopped: opaque to the session, meaningful to the source (e.g. the last
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
