import Clocks
import Readings

/// Readings as newline-delimited JSON (one object per line, each line a complete JSON text, LF
/// ended; the ndjson.org / JSON Lines convention): no header, no footer, so a truncated file is
/// still every line but the last.
public struct NDJSONExporter: Exporter {
    public var utcOffset: Duration

    public init(utcOffset: Duration) { self.utcOffset = utcOffset }

    public func header() -> [UInt8] { [] }

    public func encode(_ reading: RecordedReading) -> [UInt8] {
        var writer = ExportWriter()
        reading.writeExportJSON(into: &writer, offsetMinutes: ISO8601.offsetMinutes(utcOffset))
        writer.write(byte: 0x0A)
        return writer.bytes
    }

    public func footer() -> [UInt8] { [] }
}
