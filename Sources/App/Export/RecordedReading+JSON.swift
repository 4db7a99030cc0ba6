import Clocks
import Readings

extension RecordedReading {
    /// The reading as one JSON object for the `json` and `ndjson` exports. Field names match the
    /// CSV columns (`device, kind, value, unit, trend, time, sensor_time, sensor_run, origin, context`), plus `date`
    /// (epoch milliseconds, for programs that would rather not parse dates), for heart rate
    /// `contact`, and for meter glucose `context` (`meal=preprandial;tester=self`, the CSV's
    /// spelling). Absent optional values are left out rather than written as null.
    public func exportJSON(utcOffset: Duration) -> String {
        var writer = ExportWriter()
        writeExportJSON(into: &writer, offsetMinutes: ISO8601.offsetMinutes(utcOffset))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func writeExportJSON(into w: inout ExportWriter, offsetMinutes: Int64) {
        let value = ExportValue(self.value)
        w.write("{\"device\":")
        w.write(jsonString: device.rawValue)
        w.write(",\"kind\":\"")
        w.write(kind.rawValue)  // fixed names: nothing to escape
        w.write("\",\"value\":")
        value.writeJSON(into: &w)
        w.write(",\"unit\":\"")
        w.write(value.unit)
        if let trend = value.trend {
            w.write("\",\"trend\":\"")
            w.write(trend)
        }
        if let contact = value.contact {
            w.write("\",\"contact\":\"")
            w.write(contact)
        }
        if let context = value.context {
            w.write("\",\"context\":\"")
            w.write(context.text)  // fixed names, `=` and `;`: nothing to escape
        }
        w.write("\",\"time\":\"")
        w.write(time: wallTime, offsetMinutes: offsetMinutes, alwaysMilliseconds: false)
        w.write("\",\"date\":")
        w.write(int: wallTime.millisecondsSinceEpoch)
        if let sensorStamp {
            w.write(",\"sensor_time\":")
            w.write(int: sensorStamp.count)
            w.write(",\"sensor_run\":")
            w.write(jsonString: sensorStamp.run)
        }
        w.write(",\"origin\":\"")
        w.write(origin.rawValue)
        w.write("\"}")
    }
}
