import Clocks
import Readings

/// Readings as CSV (RFC 4180): a header line, then one line per reading with the columns
/// `device,kind,value,unit,trend,time,sensor_time,sensor_run,origin,context`, lines ended by CRLF as RFC 4180 §2
/// asks. `time` is ISO 8601 local time with its offset (`2026-11-22T07:05:00+01:00`), so a
/// spreadsheet shows the hour the person lived while the instant stays exact.
///
/// Fields are quoted only when they must be (comma, quote, CR or LF inside; RFC 4180 §2.6–2.7).
/// Only the device name and the sensor run can need it (kinds, units, directions and numbers
/// never hold those characters), so the quoted name is cached: devices repeat for a whole export. RR intervals
/// are joined by spaces in one field, in milliseconds. Heart-rate skin contact is not a column
/// here (JSON carries it). `sensor_time` and `sensor_run` are the reading's `SensorStamp`, empty
/// for sources that have none. `context` is a meter reading's Measurement Context,
/// `meal=preprandial;tester=self`, empty otherwise (last, so the columns before keep their places).
public struct CSVExporter: Exporter {
    public static let columns = ["device", "kind", "value", "unit", "trend", "time", "sensor_time", "sensor_run", "origin", "context"]

    public var utcOffset: Duration
    private var lastDevice: DeviceID?
    private var lastDeviceField: [UInt8] = []

    public init(utcOffset: Duration) { self.utcOffset = utcOffset }

    public func header() -> [UInt8] { Array((Self.columns.joined(separator: ",") + "\r\n").utf8) }

    public mutating func encode(_ reading: RecordedReading) -> [UInt8] {
        if reading.device != lastDevice {
            lastDevice = reading.device
            lastDeviceField = Array(Self.quote(reading.device.rawValue).utf8)
        }
        let value = ExportValue(reading.value)
        var w = ExportWriter()
        w.bytes.append(contentsOf: lastDeviceField)
        w.write(byte: 0x2C)
        w.write(reading.kind.rawValue)
        w.write(byte: 0x2C)
        value.writeText(into: &w)
        w.write(byte: 0x2C)
        w.write(value.unit)
        w.write(byte: 0x2C)
        if let trend = value.trend { w.write(trend) }
        w.write(byte: 0x2C)
        w.write(time: reading.wallTime, offsetMinutes: ISO8601.offsetMinutes(utcOffset), alwaysMilliseconds: false)
        w.write(byte: 0x2C)
        if let stamp = reading.sensorStamp {
            w.write(int: stamp.count)
            w.write(byte: 0x2C)
            w.write(Self.quote(stamp.run))
        } else {
            w.write(byte: 0x2C)
        }
        w.write(byte: 0x2C)
        w.write(reading.origin.rawValue)
        w.write(byte: 0x2C)
        if let context = value.context { w.write(context.text) }  // never needs quoting
        w.write(byte: 0x0D)
        w.write(byte: 0x0A)
        return w.bytes
    }

    public func footer() -> [UInt8] { [] }

    /// RFC 4180 §2.6–2.7: a field holding a comma, quote or line break is enclosed in quotes,
    /// and a quote inside it is doubled.
    static func quote(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return field }
        var out = "\""
        for character in field {
            if character == "\"" { out += "\"\"" } else { out.append(character) }
        }
        return out + "\""
    }
}
