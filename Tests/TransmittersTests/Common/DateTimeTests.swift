import Clocks
import Testing
import Wire
@testable import Transmitters

@Suite struct DateTimeTests {
    // gatt-xml date_time.xml layout (docs/protocols/sig-common.md §Date Time): 2026-11-22 07:30:00
    // = ea 07 0b 16 07 1e 00; epoch seconds computed with Python's calendar.timegm.
    @Test func decodesEveryField() throws {
        var reader = ByteReader([UInt8](hex: "ea 07 0b 16 07 1e 00"))
        let time = try DateTime(from: &reader)
        #expect(time == DateTime(year: 2026, month: 11, day: 22, hours: 7, minutes: 30, seconds: 0))
        #expect(reader.isAtEnd)
        #expect(time.isKnown)
        #expect(time.wallClockTimeAsIfUTC == WallClockTime(secondsSinceEpoch: 1_795_332_600))
        #expect(time.description == "2026-11-22 07:30:00")
        var writer = ByteWriter()
        time.write(to: &writer)
        #expect(writer.bytes == [UInt8](hex: "ea 07 0b 16 07 1e 00"))
    }

    @Test(arguments: [
        [UInt8](hex: "00 00 0b 16 07 1e 00"),   // year unknown
        [UInt8](hex: "ea 07 00 16 07 1e 00"),   // month unknown
        [UInt8](hex: "ea 07 0b 00 07 1e 00"),   // day unknown
    ])
    func unknownDatesHaveNoWallClockTime(bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        let time = try DateTime(from: &reader)
        #expect(!time.isKnown)
        #expect(time.wallClockTimeAsIfUTC == nil)
    }

    @Test(arguments: [
        ("year 1581", [UInt8](hex: "2d 06 01 01 00 00 00")),
        ("year 10000", [UInt8](hex: "10 27 01 01 00 00 00")),
        ("month 13", [UInt8](hex: "ea 07 0d 01 00 00 00")),
        ("day 32", [UInt8](hex: "ea 07 01 20 00 00 00")),
        ("hour 24", [UInt8](hex: "ea 07 01 01 18 00 00")),
        ("minute 60", [UInt8](hex: "ea 07 01 01 00 3c 00")),
        ("second 60", [UInt8](hex: "ea 07 01 01 00 00 3c")),
        ("truncated", [UInt8](hex: "ea 07 01 01 00 00")),
    ])
    func rejects(_ name: String, bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        #expect(throws: WireError.self, "\(name)") { try DateTime(from: &reader) }
    }
}
