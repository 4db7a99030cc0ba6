import App
import Clocks
import History
import Readings

/// The history as the exporters, the report, the USB bundle and the serial session read it
/// (`ReadingPageSource`, `SerialExportSource`), over `HistoryStore`.
///
/// Each page is a query of its own (`History.ReadingCursor`): the filter is its WHERE clause,
/// rows come in wall-time order, memory stays one page deep into a year, and the statement
/// ends with the page. The next page starts after where the last ended (wall time, row id), so
/// nothing holds a read snapshot between pages: inside `vigil run` a serial client that stops
/// reading mid-export (a laptop asleep on the gadget port) held the runner's statement, and
/// with it the WAL, which no checkpoint could reset, growing by every commit until the card
/// was full. The `App.ReadingCursor` handed out is the number of readings delivered so far; a
/// caller that continues from the cursor of the last page (every caller does) goes on from
/// where it ended, and any other cursor reads the query again and skips that many rows, which
/// is slower but still right.
///
/// Rows committed during an export (by `vigil run`, into its own history or the one another
/// process exports) appear in it when they sort after the page being read.
struct HistoryPageSource: SerialExportSource {
    let store: HistoryStore
    /// Where the last page ended, for the next one of the same export.
    private var open: (filter: ExportFilter, delivered: Int64, last: ReadingPosition)?

    init(store: HistoryStore) {
        self.store = store
    }

    static func query(_ filter: ExportFilter) -> HistoryQuery {
        HistoryQuery(since: filter.since, until: filter.until, kind: filter.kind, device: filter.device)
    }

    mutating func page(matching filter: ExportFilter, after cursor: App.ReadingCursor?, limit: Int) throws -> ReadingPage {
        let position = max(0, cursor?.rawValue ?? 0)
        let rows: History.ReadingCursor
        var delivered: Int64 = 0
        if let open, open.filter == filter, open.delivered == position, cursor != nil {
            rows = store.readings(Self.query(filter), after: open.last)
            delivered = open.delivered
        } else {
            rows = store.readings(Self.query(filter))
            while delivered < position, rows.next() != nil { delivered += 1 }
        }
        open = nil
        var readings: [RecordedReading] = []
        readings.reserveCapacity(min(max(1, limit), 4096))
        while readings.count < max(1, limit), let reading = rows.next() { readings.append(reading) }
        if let error = rows.error { throw error }
        delivered += Int64(readings.count)
        // A short page is the last; a full one may be followed by an empty last page.
        guard readings.count == max(1, limit), let last = rows.position else { return ReadingPage(readings: readings, next: nil) }
        open = (filter, delivered, last)
        return ReadingPage(readings: readings, next: App.ReadingCursor(delivered))
    }

    /// What the serial `STATUS` answers: reading counts per kind, events, size, storage trouble.
    mutating func statusLines() throws -> [String] {
        let counts = try store.counts()
        var lines = ["readings \(counts.totalReadings)"]
        for kind in Reading.Kind.allCases {
            if let n = counts.readings[kind], n > 0 { lines.append("readings \(kind.rawValue) \(n)") }
        }
        lines.append("alarm-events \(counts.alarmEvents)")
        lines.append("calibrations \(counts.calibrations)")
        lines.append("devices \(counts.devices)")
        lines.append("database-bytes \(counts.usedBytes)")
        if counts.pending > 0 { lines.append("pending \(counts.pending)") }
        if counts.dropped > 0 { lines.append("dropped \(counts.dropped)") }
        return lines
    }

    /// Forgets where the export was (a client gone mid-export); no statement is open anyway.
    mutating func close() { open = nil }
}
