import Clocks
import Testing
import Web

@Suite struct IMFFixdateTests {
    /// RFC 9110 §5.6.7's example.
    @Test func theRFCExample() {
        #expect(HTTP.imfFixdate(WallClockTime(secondsSinceEpoch: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func otherDates() {
        #expect(HTTP.imfFixdate(WallClockTime(secondsSinceEpoch: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTP.imfFixdate(WallClockTime(microsecondsSinceEpoch: 1_795_000_000_999_999)) == "Wed, 18 Nov 2026 11:06:40 GMT")
        #expect(HTTP.imfFixdate(WallClockTime(secondsSinceEpoch: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}
