import Clocks
import Wire

/// The GATT Date Time format (characteristic 0x2A08, gatt-xml `date_time.xml`;
/// docs/protocols/sig-common.md §Date Time): u16 year · u8 month · u8 day · u8 hours · u8 minutes ·
/// u8 seconds, 7 bytes.
///
/// Glucose meters and CGM sensors stamp records with it. Year 0 and month 0 / day 0 mean
/// "not known"; such a time cannot date a reading, so `wallClockTime` is nil for it. The fields
/// are the device's *local* calendar time: the Glucose Service carries no zone at all, the CGM
/// Service carries one separately (`CGMSessionStartTime`), so the zone is the caller's business.
public struct DateTime: Hashable, Sendable, CustomStringConvertible {
    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hours: UInt8
    public var minutes: UInt8
    public var seconds: UInt8

    public static let byteCount = 7

    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Reads 7 bytes and range-checks every field (year 1582…9999 or 0; month 0…12; day 0…31;
    /// hours 0…23; minutes and seconds 0…59), so a garbled record never becomes a date.
    public init(from reader: inout ByteReader) throws(WireError) {
        year = try reader.readUInt16("Date Time year")
        month = try reader.readUInt8("Date Time month")
        day = try reader.readUInt8("Date Time day")
        hours = try reader.readUInt8("Date Time hours")
        minutes = try reader.readUInt8("Date Time minutes")
        seconds = try reader.readUInt8("Date Time seconds")
        guard year == 0 || (1582...9999).contains(year) else { throw .invalidValue(field: "Date Time year", value: Int(year)) }
        guard month <= 12 else { throw .invalidValue(field: "Date Time month", value: Int(month)) }
        guard day <= 31 else { throw .invalidValue(field: "Date Time day", value: Int(day)) }
        guard hours <= 23 else { throw .invalidValue(field: "Date Time hours", value: Int(hours)) }
        guard minutes <= 59 else { throw .invalidValue(field: "Date Time minutes", value: Int(minutes)) }
        guard seconds <= 59 else { throw .invalidValue(field: "Date Time seconds", value: Int(seconds)) }
    }

    public func write(to writer: inout ByteWriter) {
        writer.write(year)
        writer.write(month)
        writer.write(day)
        writer.write(hours)
        writer.write(minutes)
        writer.write(seconds)
    }

    /// True when year, month and day are all known.
    public var isKnown: Bool { year != 0 && month != 0 && day != 0 }

    /// The instant these calendar fields name, read as if they were UTC; nil when the date is
    /// not known. Subtract the device's UTC offset to get true UTC.
    public var wallClockTimeAsIfUTC: WallClockTime? {
        guard isKnown else { return nil }
        let days = WallClockTime.days(year: Int64(year), month: Int64(month), day: Int64(day))
        return WallClockTime(secondsSinceEpoch: days * 86400 + Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds))
    }

    public var description: String {
        func pad(_ value: some BinaryInteger, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))"
    }
}
