import App
import Clocks
import History
import Readings

/// The history as the exporters, the report, the USB bundle and the serial session read it
/// (`ReadingPageSource`, `SerialExportSource`), over `HistoryStore`.
///
/// Pages come from one open `History.ReadingCursor` (a single SQLite statement, stepped a page
/// at a time): the filter is the statement's WHERE clause, rows come in wall-time order, and
/// memory stays one page deep into a year. The `App.ReadingCursor` handed out is the number of
/// readings delivered so far; a caller that continues from the cursor of the last page (every
/// caller does) keeps stepping the open statement, and any other cursor reopens the query and
/// skips that many rows, which is slower but still right.
///
/// In a process of its own (`vigil export`, `vigil report`) the open statement holds a WAL read
/// snapshot, so the export is consistent while `vigil run` commits. Inside `vigil run` (the
/// serial server, the USB bundle) it shares the runner's connection, so rows committed during
/// an export may appear in it if they sort after the cursor. `close()` (or the end of the
/// export) finalizes the statement.
struct HistoryPageSource: SerialExportSource {
    let store: HistoryStore
    private var open: (filter: ExportFilter, rows: History.ReadingCursor, delivered: Int64)?

    init(store: HistoryStore) {
        self.store = store
    }

    static func query(_ filter: ExportFilter) -> HistoryQuery {
        HistoryQuery(since: filter.since, until: filter.until, kind: filter.kind, device: filter.device)
    }

    mutating func page(matching filter: ExportFilter, after cursor: App.ReadingCursor?, limit: Int) throws -> ReadingPage {
        let position = max(0, cursor?.rawValue ?? 0)
        var current: (filter: ExportFilter, rows: History.ReadingCursor, delivered: Int64)
        if let open, open.filter == filter, open.delivered == position, cursor != nil {
            current = open
        } else {
            let rows = store.readings(Self.query(filter))
            var skipped: Int64 = 0
            while skipped < position, rows.next() != nil { skipped += 1 }
            current = (filter, rows, skipped)
        }
        open = nil
        var readings: [RecordedReading] = []
        readings.reserveCapacity(min(max(1, limit), 4096))
        while readings.count < max(1, limit), let reading = current.rows.next() { readings.append(reading) }
        if let error = current.rows.error { throw error }
        current.delivered += Int64(readings.count)
        // A short page is the last; a full one may be followed by an empty last page.
        guard readings.count == max(1, limit) else { return ReadingPage(readings: readings, next: nil) }
        open = current
        return ReadingPage(readings: readings, next: App.ReadingCursor(current.delivered))
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

    /// Ends the open read (a client gone mid-export): the statement and its snapshot go.
    mutating func close() { open = nil }
}
