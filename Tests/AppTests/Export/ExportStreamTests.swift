import Clocks
import Readings
import Testing
@testable import App

@Suite struct ExportStreamTests {
    @Test(arguments: ExportFormat.allCases)
    func concatenatedPiecesAreTheWholeExport(_ format: ExportFormat) throws {
        var source = ArraySource(readings: ExportFixtures.everyKind)
        var stream = ExportStream(format: format, filter: .all, utcOffset: .seconds(3600), pageSize: 2)
        var out: [UInt8] = []
        var pieces = 0
        while let piece = try stream.next(from: &source) {
            out += piece
            pieces += 1
        }
        var exporter = format.makeExporter(utcOffset: .seconds(3600))
        #expect(out == exporter.export(ExportFixtures.everyKind))
        #expect(pieces == 5 && source.pagesServed == 5)  // 9 readings in pages of 2
        #expect(try stream.next(from: &source) == nil)
        #expect(source.pagesServed == 5)  // a finished stream asks for nothing more
    }

    @Test func anEmptyExportIsStillAWholeDocument() throws {
        var source = ArraySource(readings: ExportFixtures.everyKind)
        var stream = ExportStream(format: .json, filter: ExportFilter(device: "nobody"), utcOffset: .zero)
        #expect(try stream.next(from: &source) == Array("[]\n".utf8))
        #expect(try stream.next(from: &source) == nil)
    }

    @Test func aFailedReadCanBeRetriedWhereItStopped() throws {
        var source = ArraySource(readings: ExportFixtures.everyKind)
        source.failOnPage = 2
        var stream = ExportStream(format: .ndjson, filter: .all, utcOffset: .zero, pageSize: 5)
        var out = try #require(try stream.next(from: &source))
        #expect(throws: ArraySource.Failure.self) { try stream.next(from: &source) }
        while let piece = try stream.next(from: &source) { out += piece }
        var exporter = NDJSONExporter(utcOffset: .zero)
        #expect(out == exporter.export(ExportFixtures.everyKind))
    }
}
