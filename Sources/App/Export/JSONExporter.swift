import Clocks
import Readings

/// Readings as one JSON array (RFC 8259) of the objects `RecordedReading.exportJSON` describes,
/// one element per line so a year of data stays greppable and diffable:
/// `[\n{...},\n{...}\n]\n`. Streams: only "has an element been written" is remembered.
public struct JSONExporter: Exporter {
    public var utcOffset: Duration
    private var wroteElement = false

    public init(utcOffset: Duration) { self.utcOffset = utcOffset }

    public mutating func header() -> [UInt8] {
        wroteElement = false
        return Array("[".utf8)
    }

    public mutating func encode(_ reading: RecordedReading) -> [UInt8] {
        var writer = ExportWriter()
        writer.write(wroteElement ? ",\n" : "\n")
        wroteElement = true
        reading.writeExportJSON(into: &writer, offsetMinutes: ISO8601.offsetMinutes(utcOffset))
        return writer.bytes
    }

    public mutating func footer() -> [UInt8] { Array((wroteElement ? "\n]\n" : "]\n").utf8) }
}
