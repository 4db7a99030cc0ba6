import Testing
import Wire
@testable import Transmitters

@Suite struct LibreRecordTests {
    /// Trend slot 15 of the xDrip dump: `2b 05 00 e0 5b 80`.
    /// Bits 0–13: 0x052B = 1323; bits 14–25: byte1 bits 6–7 (0), byte2 (0x00), byte3 bits 0–1 (0) → 0;
    /// bits 26–37: byte3 bits 2–7 (0xE0 >> 2 = 0x38) | byte4 bits 0–5 (0x1B) << 6 = 0x6F8 → × 4 = 7136;
    /// bits 38–46: byte4 bits 6–7 (0b01) | byte5 bits 0–6 (0) << 2 = 1 → × 4 = 4; bit 47 = 1 → −4.
    @Test func everyFieldOfARealRecord() {
        let record = LibreRecord([UInt8](hex: "2b 05 00 e0 5b 80")[...])
        #expect(record.rawGlucose13 == 1323)
        #expect(record.rawGlucose14 == 1323)
        #expect(record.rawGlucose == 1323)
        #expect(record.errorBits == 0)
        #expect(record.rawTemperature == 7136)
        #expect(record.temperatureAdjustment == -4)
        #expect(record.problem == nil)
    }

    /// Bit 13 set: the 13- and 14-bit readings disagree, so the record is not used.
    @Test func bit13MakesTheReadingsDisagree() {
        let record = LibreRecord([UInt8](hex: "2b 25 00 00 00 00")[...])
        #expect(record.rawGlucose13 == 0x052B)
        #expect(record.rawGlucose14 == 0x252B)
        #expect(record.problem?.contains("bit 13") == true)
    }

    @Test(arguments: [
        ("00 00 00 00 00 00", "raw glucose 0"),
        ("2b 45 00 00 00 00", "error bits"),        // bit 14 set
        ("2b 05 01 00 00 00", "error bits"),        // bit 16 set
        ("2b 05 00 02 00 00", "error bits"),        // bit 25 set
    ])
    func unusableRecords(hex: String, reason: String) {
        let record = LibreRecord([UInt8](hex: hex)[...])
        #expect(record.problem?.contains(reason) == true)
    }

    @Test func positiveTemperatureAdjustment() {
        // bits 38–46 = 0b1_0000_0001 (byte4 bit 6, byte5 bit 6), bit 47 clear → 257 × 4.
        let record = LibreRecord([UInt8](hex: "01 00 00 00 40 40")[...])
        #expect(record.temperatureAdjustment == 1028)
    }
}
