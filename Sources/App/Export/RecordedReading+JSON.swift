import Clocks
import Readings

extension RecordedReading {
    /// The reading as one JSON object for the `json` and `ndjson` exports. Field names match the
    /// CSV columns (`device, kind, value, unit, trend, time, sensor_time, origin`), plus `date`
    /// (epoch milliseconds, for programs that would rather not parse dates) and, for heart rate,
    /// `contact`. Absent optional values are left out rather than written as null.
    public func exportJSON(utcOffset: Duration) -> JSON {
        let value = ExportValue(self.value)
        var members: [(String, JSON)] = [
            ("device", .string(device.rawValue)), ("kind", .string(kind.rawValue)),
            ("value", value.json), ("unit", .string(value.unit)),
        ]
        if let trend = value.trend { members.append(("trend", .string(trend))) }
        if let contact = value.contact { members.append(("contact", .string(contact))) }
        members.append(("time", .string(ISO8601.string(wallTime, utcOffset: utcOffset))))
        members.append(("date", .int(wallTime.millisecondsSinceEpoch)))
        if let sensorTime { members.append(("sensor_time", .int(sensorTime))) }
        members.append(("origin", .string(origin.rawValue)))
        return .object(members)
    }
}
