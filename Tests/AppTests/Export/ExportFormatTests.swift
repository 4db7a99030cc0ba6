import Testing
@testable import App

@Suite struct ExportFormatTests {
    @Test(arguments: [("csv", ExportFormat.csv), ("CSV", .csv), ("json", .json), ("ndjson", .ndjson), ("NightScout", .nightscout)])
    func parsesNames(_ name: String, _ format: ExportFormat) throws {
        #expect(try ExportFormat(parsing: name) == format)
    }

    @Test(arguments: ["", "xml", "csv ", "ns"])
    func rejectsOthersNamingTheChoices(_ name: String) {
        #expect(throws: ExportFormat.UnknownFormat(name: name)) { try ExportFormat(parsing: name) }
        #expect(ExportFormat.UnknownFormat(name: name).description == "unknown export format '\(name)' (expected csv, json, ndjson, nightscout)")
    }

    @Test func extensionsAndExporters() {
        #expect(ExportFormat.allCases.map(\.fileExtension) == ["csv", "json", "ndjson", "json"])
        #expect(ExportFormat.allCases.map(\.mediaType) == ["text/csv", "application/json", "application/x-ndjson", "application/json"])
        #expect(ExportFormat.csv.makeExporter(utcOffset: .zero) is CSVExporter)
        #expect(ExportFormat.json.makeExporter(utcOffset: .zero) is JSONExporter)
        #expect(ExportFormat.ndjson.makeExporter(utcOffset: .zero) is NDJSONExporter)
        #expect(ExportFormat.nightscout.makeExporter(utcOffset: .zero) is NightscoutExporter)
    }
}
