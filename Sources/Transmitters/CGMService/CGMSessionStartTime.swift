import Clocks
import Wire

/// CGM Session Start Time, characteristic 0x2AAA (read/write): Date Time (7) · Time Zone i8 ·
/// DST Offset u8 · [E2E-CRC] (gatt-xml `cgm_session_start_time.xml`, `time_zone.xml`,
/// `dst_offset.xml`; docs/protocols/sig-common.md §Date Time; docs/protocols/sig-cgm.md §Session
/// Start Time). A measurement's absolute time is this start plus its time offset in minutes.
public struct CGMSessionStartTime: Hashable, Sendable {
    public var localTime: DateTime
    /// Offset from UTC in 15-minute units, −48…+56; −128 means unknown.
    public var timeZone: Int8
    /// 0 standard time, 2 +0.5 h, 4 +1 h, 8 +2 h, 255 unknown.
    public var dstOffset: UInt8

    public init(localTime: DateTime, timeZone: Int8, dstOffset: UInt8) {
        self.localTime = localTime
        self.timeZone = timeZone
        self.dstOffset = dstOffset
    }

    public init(decoding bytes: [UInt8], crcRequired: Bool) throws(WireError) {
        var reader = ByteReader(try CGME2ECRC.payload(of: bytes, length: 9, required: crcRequired, what: "CGM Session Start Time"))
        localTime = try DateTime(from: &reader)
        timeZone = try reader.readInt8("CGM Session Start Time time zone")
        guard timeZone == -128 || (-48...56).contains(timeZone) else {
            throw .invalidValue(field: "CGM Session Start Time time zone", value: Int(timeZone))
        }
        dstOffset = try reader.readUInt8("CGM Session Start Time DST offset")
        guard [0, 2, 4, 8, 255].contains(dstOffset) else {
            throw .invalidValue(field: "CGM Session Start Time DST offset", value: Int(dstOffset))
        }
    }

    /// The start in UTC: local time minus zone and DST (an unknown zone or DST counts as 0, so
    /// a sensor that never learned its zone is read as keeping UTC). Nil when the date is unknown.
    public var utc: WallClockTime? {
        guard let local = localTime.wallClockTimeAsIfUTC else { return nil }
        let zone = timeZone == -128 ? 0 : Int64(timeZone) * 15 * 60
        let dst = dstOffset == 255 ? 0 : Int64(dstOffset) * 15 * 60
        return local - .seconds(zone + dst)
    }

    public func encoded(withCRC: Bool) -> [UInt8] {
        var writer = ByteWriter()
        localTime.write(to: &writer)
        writer.write(timeZone)
        writer.write(dstOffset)
        return withCRC ? CGME2ECRC.appending(to: writer.bytes) : writer.bytes
    }
}
