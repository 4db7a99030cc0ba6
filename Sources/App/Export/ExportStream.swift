import Clocks

/// One export, pulled a page at a time: what `vigil export`, the USB bundle and the serial
/// session share, so each caller only moves bytes. Each `next` asks the source for one page and
/// returns its encoding (the first call also carries the header, the last the footer); nil
/// after the end. Memory stays one page whatever the length of the export.
public struct ExportStream {
    public let format: ExportFormat
    public let filter: ExportFilter
    public let pageSize: Int
    private var exporter: any Exporter
    private var state = State.notStarted

    private enum State {
        case notStarted
        case reading(after: ReadingCursor)
        case finished
    }

    public init(format: ExportFormat, filter: ExportFilter, utcOffset: Duration, pageSize: Int = 1000) {
        self.format = format
        self.filter = filter
        self.pageSize = max(1, pageSize)
        exporter = format.makeExporter(utcOffset: utcOffset)
    }

    /// The next piece of the export, or nil when it is complete. A source error is thrown as is
    /// and leaves the stream where it was, so a caller may retry or give up.
    public mutating func next<Source: ReadingPageSource>(from source: inout Source) throws -> [UInt8]? {
        let cursor: ReadingCursor?
        switch state {
        case .finished: return nil
        case .notStarted: cursor = nil
        case let .reading(after): cursor = after
        }
        let page = try source.page(matching: filter, after: cursor, limit: pageSize)
        var out = cursor == nil ? exporter.header() : []
        for reading in page.readings { out += exporter.encode(reading) }
        if let next = page.next {
            state = .reading(after: next)
        } else {
            out += exporter.footer()
            state = .finished
        }
        return out
    }
}
