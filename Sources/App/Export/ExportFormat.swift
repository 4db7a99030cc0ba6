import Clocks

/// The export formats by the names `--format` and the serial `EXPORT` command take.
public enum ExportFormat: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case csv
    case json
    case ndjson
    case nightscout

    /// What was wrong with a format name.
    public struct UnknownFormat: Error, Equatable, CustomStringConvertible {
        public var name: String
        public var description: String {
            "unknown export format '\(name)' (expected \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }

    /// Parses a format name, ignoring ASCII case (`CSV` typed at a terminal is still CSV).
    public init(parsing name: String) throws(UnknownFormat) {
        guard let format = ExportFormat(rawValue: name.lowercased()) else { throw UnknownFormat(name: name) }
        self = format
    }

    /// The file name extension: Nightscout entries are JSON.
    public var fileExtension: String {
        switch self {
        case .csv: "csv"
        case .json, .nightscout: "json"
        case .ndjson: "ndjson"
        }
    }

    /// The media type (RFC 4180 text/csv; RFC 8259 application/json; application/x-ndjson).
    public var mediaType: String {
        switch self {
        case .csv: "text/csv"
        case .json, .nightscout: "application/json"
        case .ndjson: "application/x-ndjson"
        }
    }

    /// A fresh exporter for this format, dating readings at `utcOffset`.
    public func makeExporter(utcOffset: Duration) -> any Exporter {
        switch self {
        case .csv: CSVExporter(utcOffset: utcOffset)
        case .json: JSONExporter(utcOffset: utcOffset)
        case .ndjson: NDJSONExporter(utcOffset: utcOffset)
        case .nightscout: NightscoutExporter(utcOffset: utcOffset)
        }
    }

    public var description: String { rawValue }
}
