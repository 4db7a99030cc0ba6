import Clocks
import Readings
import Testing
@testable import App

/// An in-memory history: the cursor is the index of the last reading returned.
struct ArraySource: SerialExportSource {
    var readings: [RecordedReading]
    var pagesServed = 0
    var failOnPage: Int?
    var status = ["readings 9", "oldest 2026-11-22T06:05:00+00:00"]

    struct Failure: Error, CustomStringConvertible { var description: String { "disk I/O error" } }

    mutating func page(matching filter: ExportFilter, after cursor: ReadingCursor?, limit: Int) throws -> ReadingPage {
        pagesServed += 1
        if pagesServed == failOnPage { throw Failure() }
        var out: [RecordedReading] = []
        var index = cursor.map { Int($0.rawValue) + 1 } ?? 0
        while index < readings.count && out.count < limit {
            if filter.includes(readings[index]) { out.append(readings[index]) }
            index += 1
        }
        let more = readings[min(index, readings.count)...].contains(where: filter.includes)
        return ReadingPage(readings: out, next: more ? ReadingCursor(Int64(index - 1)) : nil)
    }

    func statusLines() throws -> [String] { status }
}

@Suite struct ReadingPageSourceTests {
    // The test double's paging must follow the protocol's contract, or the tests built on it
    // would prove nothing: pages in order, none repeated, `next` nil exactly at the end.
    @Test(arguments: [1, 2, 4, 9, 10, 100])
    func pagesCoverTheMatchesOnceInOrder(_ limit: Int) throws {
        var source = ArraySource(readings: ExportFixtures.everyKind)
        for filter in [ExportFilter.all, ExportFilter(device: "hr1"), ExportFilter(kind: .glucose), ExportFilter(kind: .temperature, device: "nobody")] {
            var seen: [RecordedReading] = []
            var cursor: ReadingCursor?
            var pages = 0
            repeat {
                let page = try source.page(matching: filter, after: cursor, limit: limit)
                #expect(page.readings.count <= limit)
                seen += page.readings
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 100
            #expect(seen == ExportFixtures.everyKind.filter(filter.includes))
        }
    }
}
