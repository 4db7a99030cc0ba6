import Clocks
import Readings
import Testing
@testable import App

/// A known one-hour trace. Expected values were computed independently with Python's
/// `statistics` module (mean, stdev) and by counting by hand, not with the code under test.
enum ReportTrace {
    /// 2026-11-22T00:00:00Z (1795305600 s, Python datetime).
    static let start = WallClockTime(secondsSinceEpoch: 1_795_305_600)
    static let end = start + .seconds(3600)

    static func glucose(_ mgdL: Double, minute: Double, device: DeviceID = "dexcom") -> RecordedReading {
        RecordedReading(device: device, value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: .flat),
                        wallTime: start + .seconds(minute * 60))
    }

    /// Minutes 0, 5, ... 45 plus a second sensor's reading at minute 2 (same 5-minute slot as 0);
    /// minutes 50 and 55 missing. Values sit on every range boundary.
    static let inPeriod: [RecordedReading] = [
        glucose(50, minute: 0), glucose(100, minute: 2, device: "libre"), glucose(54, minute: 5), glucose(69, minute: 10),
        glucose(70, minute: 15), glucose(180, minute: 20), glucose(181, minute: 25), glucose(250, minute: 30),
        glucose(251, minute: 35), glucose(100, minute: 40), glucose(95, minute: 45),
    ]

    /// Readings that must not count: before the start, at the (exclusive) end, and not sensor glucose.
    static let ignored: [RecordedReading] = [
        glucose(400, minute: -5), glucose(400, minute: 60),
        RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 400), context: nil), wallTime: start + .seconds(600)),
        RecordedReading(device: "hr1", value: .heartRate(BeatsPerMinute(60), contact: .detected), wallTime: start + .seconds(700)),
    ]
}

@Suite struct ReportStatisticsTests {
    let stats = ReportStatistics(readings: ReportTrace.ignored + ReportTrace.inPeriod, start: ReportTrace.start, end: ReportTrace.end)

    @Test func countsOnlySensorGlucoseInsideThePeriod() {
        #expect(stats.readingCount == 11)
        #expect(stats.start == ReportTrace.start && stats.end == ReportTrace.end)
    }

    @Test func timeInRangesSplitsOnTheConsensusBoundaries() {
        // <54: 50 → 1; 54–69: 54, 69 → 2; 70–180: 100, 70, 180, 100, 95 → 5; 181–250: 181, 250 → 2; >250: 251 → 1.
        #expect(stats.timeInRanges == ReportStatistics.TimeInRanges(veryLow: 1.0 / 11, low: 2.0 / 11, inRange: 5.0 / 11, high: 2.0 / 11, veryHigh: 1.0 / 11))
    }

    @Test func meanSDGMIAndCVMatchAnIndependentComputation() throws {
        // Python: mean 127.27272727272727, stdev 75.22112855985466, cv 0.5910231529702866,
        // GMI 3.31 + 0.02392 × mean = 6.354363636363637.
        #expect(abs(try #require(stats.meanMilligramsPerDeciliter) - 127.27272727272727) < 1e-9)
        #expect(abs(try #require(stats.standardDeviationMilligramsPerDeciliter) - 75.22112855985466) < 1e-9)
        #expect(abs(try #require(stats.coefficientOfVariation) - 0.5910231529702866) < 1e-12)
        #expect(abs(try #require(stats.glucoseManagementIndicatorPercent) - 6.354363636363637) < 1e-12)
    }

    @Test func activeTimeCountsFilledFiveMinuteSlots() {
        // 12 slots in the hour; slots 0..9 filled (minute 2 shares slot 0), 10 and 11 empty.
        #expect(abs(stats.activeFraction - 10.0 / 12) < 1e-12)
    }

    @Test func noReadingsMeansNoDataNotZero() {
        let empty = ReportStatistics(readings: ReportTrace.ignored, start: ReportTrace.start, end: ReportTrace.end)
        #expect(empty.readingCount == 0)
        #expect(empty.meanMilligramsPerDeciliter == nil && empty.standardDeviationMilligramsPerDeciliter == nil)
        #expect(empty.glucoseManagementIndicatorPercent == nil && empty.coefficientOfVariation == nil)
        #expect(empty.timeInRanges == .zero && empty.activeFraction == 0)
    }

    @Test func oneReadingHasAMeanButNoSpread() {
        let one = ReportStatistics(readings: [ReportTrace.glucose(154, minute: 1)], start: ReportTrace.start, end: ReportTrace.end)
        #expect(one.meanMilligramsPerDeciliter == 154)
        #expect(one.glucoseManagementIndicatorPercent == 3.31 + 0.02392 * 154)
        #expect(one.standardDeviationMilligramsPerDeciliter == nil && one.coefficientOfVariation == nil)
        #expect(one.timeInRanges.inRange == 1)
        #expect(abs(one.activeFraction - 1.0 / 12) < 1e-12)
    }

    @Test(arguments: [(53.4, 0), (53.5, 1), (69.4, 1), (69.5, 2), (180.4, 2), (180.5, 3), (250.4, 3), (250.5, 4)])
    func fractionalValuesAreClassedByTheirWholeMgdL(_ mgdL: Double, _ range: Int) {
        #expect(ReportStatistics.rangeIndex(GlucoseConcentration(milligramsPerDeciliter: mgdL).roundedMilligramsPerDeciliter) == range)
    }

    @Test(arguments: [(154.0, 6.99368), (100.0, 5.702), (183.0, 7.68736)])
    func glucoseManagementIndicatorFormula(_ mean: Double, _ gmi: Double) {
        // Bergenstal 2018 table: 154 mg/dL ≈ 7.0 %, 183 mg/dL ≈ 7.7 % (exact values by hand).
        #expect(abs(ReportStatistics.glucoseManagementIndicator(meanMilligramsPerDeciliter: mean) - gmi) < 1e-9)
    }
}
