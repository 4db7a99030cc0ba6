import Clocks
import Readings

/// Glucose readings as a JSON array of Nightscout API v1 entries, ready for
/// `POST /api/v1/entries` or a Nightscout import (docs/peer-conventions.md §Nightscout entries).
///
/// - Sensor glucose → `{"type":"sgv","sgv":<integer mg/dL>,"date":<epoch ms>,"dateString":<ISO 8601>,
///   "direction":<Nightscout direction>,"device":"vigil-<device>","utcOffset":<minutes>}`.
///   `direction` is the exact Nightscout string (`TrendDirection.nightscoutName`); a reading
///   the transmitter sent without a trend gets `NONE`, Nightscout's "no direction".
/// - Meter glucose → `{"type":"mbg","mbg":<integer mg/dL>,"date","dateString","device","utcOffset"}`,
///   plus `"notes":"meal=preprandial;tester=self"` when the meter sent a Measurement Context.
///   Nightscout's v1 entry schema has no field for it; `notes` is the name its treatments use
///   for free text (`Treatment.notes`, "Description/notes of treatment"), and an entry keeps
///   fields it does not know (as it keeps `utcOffset`), so the context survives an upload
///   and reads the same as in the history and the other exports.
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
        guard reading.kind == .glucose || reading.kind == .meterGlucose else { return [] }
        var writer = ExportWriter()
        writer.write(wroteElement ? ",\n" : "\n")
        wroteElement = true
        writeEntry(reading, into: &writer)
        return writer.bytes
    }

    public mutating func footer() -> [UInt8] { Array((wroteElement ? "\n]\n" : "]\n").utf8) }

    /// The entry for one reading as JSON text, or nil for kinds Nightscout entries cannot hold.
    public func entry(for reading: RecordedReading) -> String? {
        guard reading.kind == .glucose || reading.kind == .meterGlucose else { return nil }
        var writer = ExportWriter()
        writeEntry(reading, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func writeEntry(_ reading: RecordedReading, into w: inout ExportWriter) {
        let offsetMinutes = ISO8601.offsetMinutes(utcOffset)
        var direction: TrendDirection?
        var notes: String?
        switch reading.value {
        case let .glucose(concentration, trend):
            w.write(#"{"type":"sgv","sgv":"#)
            w.write(int: Int64(max(Self.lowestGlucoseSGV, concentration.roundedMilligramsPerDeciliter)))
            direction = trend ?? TrendDirection.none
        case let .meterGlucose(concentration, context):
            w.write(#"{"type":"mbg","mbg":"#)
            w.write(int: Int64(concentration.roundedMilligramsPerDeciliter))
            notes = context?.text
        default:
            return
        }
        w.write(#","date":"#)
        w.write(int: reading.wallTime.millisecondsSinceEpoch)
        w.write(#","dateString":""#)
        w.write(time: reading.wallTime, offsetMinutes: offsetMinutes, alwaysMilliseconds: true)
        if let direction {
            w.write(#"","direction":""#)
            w.write(direction.nightscoutName)
        }
        w.write(#"","device":"#)
        w.write(jsonString: "vigil-" + reading.device.rawValue)
        if let notes {
            w.write(#","notes":"#)
            w.write(jsonString: notes)
        }
        w.write(#","utcOffset":"#)
        w.write(int: offsetMinutes)
        w.write(byte: 0x7D)
    }
}
