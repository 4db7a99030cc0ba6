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
        guard let entry = entry(for: reading) else { return [] }
        let separator = wroteElement ? ",\n" : "\n"
        wroteElement = true
        return Array((separator + entry).utf8)
    }

    public mutating func footer() -> [UInt8] { Array((wroteElement ? "\n]\n" : "]\n").utf8) }

    /// The entry for one reading as JSON text, or nil for kinds Nightscout entries cannot hold.
    public func entry(for reading: RecordedReading) -> String? {
        let offsetMinutes = ISO8601.offsetMinutes(utcOffset)
        let dateString = ISO8601.string(reading.wallTime, utcOffset: utcOffset, alwaysMilliseconds: true)
        return Self.fields(of: reading, dateString: dateString, utcOffsetMinutes: offsetMinutes).map { JSON.object($0).rendered }
    }

    /// An entry's fields in order, or nil for kinds Nightscout entries cannot hold: the one
    /// mapping from a reading to an entry, shared by this export (`dateString` in local time
    /// with its offset, as an uploader sends it) and the served API (`Nightscout.EntryDocuments`:
    /// `dateString` in UTC, as Nightscout stores and serves it; docs/nightscout-api.md).
    static func fields(of reading: RecordedReading, dateString: String, utcOffsetMinutes: Int64) -> [(String, JSON)]? {
        var fields: [(String, JSON)]
        var direction: TrendDirection?
        var notes: String?
        switch reading.value {
        case let .glucose(concentration, trend):
            fields = [("type", "sgv"), ("sgv", .int(Int64(max(Self.lowestGlucoseSGV, concentration.roundedMilligramsPerDeciliter))))]
            direction = trend ?? TrendDirection.none
        case let .meterGlucose(concentration, context):
            fields = [("type", "mbg"), ("mbg", .int(Int64(concentration.roundedMilligramsPerDeciliter)))]
            notes = context?.text
        default:
            return nil
        }
        fields += [("date", .int(reading.wallTime.millisecondsSinceEpoch)), ("dateString", .string(dateString))]
        if let direction { fields.append(("direction", .string(direction.nightscoutName))) }
        fields.append(("device", .string("vigil-" + reading.device.rawValue)))
        if let notes { fields.append(("notes", .string(notes))) }
        fields.append(("utcOffset", .int(utcOffsetMinutes)))
        return fields
    }
}
