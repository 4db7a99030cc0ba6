import Clocks
import Readings

/// Readings as CSV (RFC 4180): a header line, then one line per reading with the columns
/// `device,kind,value,unit,trend,time,sensor_time,origin`, lines ended by CRLF as RFC 4180 §2
/// asks. `time` is ISO 8601 local time with its offset (`2026-11-22T07:05:00+01:00`), so a
/// spreadsheet shows the hour the person lived while the instant stays exact.
///
/// Fields are quoted only when they must be (comma, quote, CR or LF inside; RFC 4180 §2.6–2.7),
/// which in practice means only odd device names. RR intervals are joined by spaces in one
/// field, in milliseconds. Heart-rate skin contact is not a column here (JSON carries it).
public struct CSVExporter: Exporter {
    public static let columns = ["device", "kind", "value", "unit", "trend", "time", "sensor_time", "origin"]

    public var utcOffset: Duration

    public init(utcOffset: Duration) { self.utcOffset = utcOffset }

    public func header() -> [UInt8] { Self.line(Self.columns) }

    public func encode(_ reading: RecordedReading) -> [UInt8] {
        let value = ExportValue(reading.value)
        return Self.line([
            reading.device.rawValue, reading.kind.rawValue, value.text, value.unit, value.trend ?? "",
            ISO8601.string(reading.wallTime, utcOffset: utcOffset),
            reading.sensorTime.map(String.init) ?? "", reading.origin.rawValue,
        ])
    }

    public func footer() -> [UInt8] { [] }

    static func line(_ fields: [String]) -> [UInt8] {
        var out = fields.map(quote).joined(separator: ",")
        out += "\r\n"
        return Array(out.utf8)
    }

    /// RFC 4180 §2.6–2.7: a field holding a comma, quote or line break is enclosed in quotes,
    /// and a quote inside it is doubled.
    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return field }
        var out = "\""
        for character in field {
            if character == "\"" { out += "\"\"" } else { out.append(character) }
        }
        return out + "\""
    }
}
