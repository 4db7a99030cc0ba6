import Clocks
import Readings
import Testing
@testable import App

@Suite struct AmbulatoryGlucoseProfileTests {
    @Test(arguments: [
        // NumPy's default percentile (linear, type 7), computed independently:
        // [100,120,140,160,180] → 104, 120, 140, 160, 176; [60,200,90,150] → 64.5, 82.5, 120, 162.5, 192.5.
        ([100.0, 120, 140, 160, 180], [104.0, 120, 140, 160, 176]),
        ([60, 90, 150, 200], [64.5, 82.5, 120, 162.5, 192.5]),
        ([77], [77, 77, 77, 77, 77]),
    ])
    func percentilesInterpolateLinearly(_ sorted: [Double], _ expected: [Double]) {
        let got = [0.05, 0.25, 0.5, 0.75, 0.95].map { AmbulatoryGlucoseProfile.percentile($0, ofSorted: sorted) }
        #expect(zip(got, expected).allSatisfy { abs($0 - $1) < 1e-9 })
    }

    @Test func foldsDaysOntoLocalTimeBins() throws {
        // 23:10Z at UTC+01:00 is 00:10 local: bin 0 on four consecutive days.
        let midnight = WallClockTime(secondsSinceEpoch: 1_795_305_600)  // 2026-11-22T00:00Z
        let values = [60.0, 200, 90, 150]
        var readings = values.enumerated().map { day, mgdL in
            RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: nil),
                            wallTime: midnight + .seconds(Int64(day) * 86_400 - 50 * 60))
        }
        // 11:59:59 local goes to bin 47 (11:45–12:00); a meter reading in bin 0 is ignored.
        readings.append(RecordedReading(device: "dexcom", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 111), trend: nil),
                                        wallTime: midnight + .seconds(10 * 3600 + 59 * 60 + 59)))
        readings.append(RecordedReading(device: "meter", value: .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 400), context: nil), wallTime: midnight - .seconds(50 * 60)))
        let profile = AmbulatoryGlucoseProfile(readings: readings, utcOffset: .seconds(3600))
        #expect(profile.binMinutes == 15 && profile.bins.count == 96)
        #expect(profile.bins.map(\.startMinute) == Array(stride(from: 0, to: 1440, by: 15)))
        #expect(profile.bins[0].count == 4)
        let p = try #require(profile.bins[0].percentiles)
        let expected = [64.5, 82.5, 120, 162.5, 192.5]  // as in percentilesInterpolateLinearly
        #expect(zip([p.p5, p.p25, p.p50, p.p75, p.p95], expected).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(profile.bins[47].count == 1 && profile.bins[47].percentiles?.p50 == 111)
        #expect(profile.bins.enumerated().allSatisfy { $0.offset == 0 || $0.offset == 47 || ($0.element.count == 0 && $0.element.percentiles == nil) })
    }

    @Test func fiveMinuteBinsAreAvailable() {
        #expect(AmbulatoryGlucoseProfile(readings: [], utcOffset: .zero, binMinutes: 5).bins.count == 288)
    }
}
