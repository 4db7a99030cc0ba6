import Clocks
import Testing
@testable import App

@Suite struct LibreLinkUpTimestampTests {
    @Test(arguments: [
        ("11/28/2025 3:20:00 AM", Int64?(1_764_300_000)), ("2/29/2024 12:05:00 AM", 1_709_165_100), ("11/28/2025 12:00:00 PM", 1_764_331_200),
        ("11/28/2025 3:20:00 PM", 1_764_300_000 + 12 * 3600),
        ("2/29/2025 1:00:00 AM", nil), ("13/1/2025 1:00:00 AM", nil), ("11/28/2025 13:00:00 PM", nil), ("11/28/2025 0:00:00 AM", nil),
        ("11/28/2025 3:20:00", nil), ("11/28/25 3:20:00 AM", nil), ("11/28/2025 3:2:00 AM", nil), ("2025-11-28T03:20:00Z", nil), ("", nil),
    ])
    func parses(_ text: String, _ seconds: Int64?) {
        #expect(LibreLinkUpTimestamp.parse(text)?.secondsSinceEpoch == seconds)
    }
}
