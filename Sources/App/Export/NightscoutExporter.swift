import Clocks
import Readings

/// Glucose readings as a JSON array of Nightscout API v1 entries, ready for
/// `POST /api/v1/entries` or a Nightscout import (alarms-and-formats.md "Nightscout entries").
///
/// - Sensor glucose → `{"type":"sgv","sgv":<integer mg/dL>,"date":<epoch ms>,"dateString":<ISO 8601>,
///   "direction":<Nightscout direction>,"device":"vigil-<device>","utcOffset":<minutes>}`.
///   `direction` is the exact Nightscout string (`TrendDirection.nightscoutName`); a reading
///   the transmitter sent without a trend gets `NONE`, Nightscout's "no direction".
/// - Meter glucose → `{"type":"mbg","mbg":<integer mg/dL>,"date","dateString","device","utcOffset"}`.
/// - Everything else is skipped: Nightscout entries have no heart rate or temperature.
///
/// Nightscout reads `sgv` values below 39 as sensor error codes, not glucose, so a real reading
/// below 39 mg/dL is written as 39, the value Dexcom itself reports for "LOW" — never as a code
/// that would hide a severe low. `utcOffset` is API v3's field; v1 keeps it as an extra field.
/// Nightscout de-duplicates on date + type, so re-uploading an export is harmless.
public struct NightscoutExporter: Exporter {
    /// The lowest `sgv` Nightscout reads as glucose; below it are error codes.
    public static let lowestGlucoseSGV = 39

    public var utcOffset: Duration
    private var wroteElement = false

    public init(utcOffset: Duration) { self.utcOffset = utcOffset }

    public mutating func header() -> [UInt8] {
        wroteElement = false
        return Array("[".utf8)
    }

    public mutating func encode(_ reading: RecordedReading) -> [UInt8] {
        guard let entry = entry(for: reading) else { return [] }
        let separator = wroteElement ? ",\n" : "\n"
        wroteElement = true
        return Array((separator + entry.rendered).utf8)
    }

    public mutating func footer() -> [UInt8] { Array((wroteElement ? "\n]\n" : "]\n").utf8) }

    /// The entry for one reading, or nil for kinds Nightscout entries cannot hold.
    public func entry(for reading: RecordedReading) -> JSON? {
        let type: String, valueField: (String, JSON), direction: TrendDirection?
        switch reading.value {
        case let .glucose(concentration, trend):
            type = "sgv"
            valueField = ("sgv", .int(Int64(max(Self.lowestGlucoseSGV, concentration.roundedMilligramsPerDeciliter))))
            direction = trend ?? TrendDirection.none
        case let .meterGlucose(concentration):
            type = "mbg"
            valueField = ("mbg", .int(Int64(concentration.roundedMilligramsPerDeciliter)))
            direction = nil
        default:
            return nil
        }
        var members: [(String, JSON)] = [("type", .string(type)), valueField,
            ("date", .int(reading.wallTime.millisecondsSinceEpoch)),
            ("dateString", .string(ISO8601.string(reading.wallTime, utcOffset: utcOffset, alwaysMilliseconds: true)))]
        if let direction { members.append(("direction", .string(direction.nightscoutName))) }
        members.append(("device", .string("vigil-\(reading.device.rawValue)")))
        members.append(("utcOffset", .int(utcOffset.nanosecondsClamped / 60_000_000_000)))
        return .object(members)
    }
}
