import Clocks
import Readings
import Testing
@testable import App

@Suite struct JSONExporterTests {
    @Test func anEmptyExportIsAnEmptyArray() {
        var exporter = JSONExporter(utcOffset: .zero)
        #expect(ExportFixtures.text(exporter.export([])) == "[]\n")
    }

    @Test func elementsAreCommaSeparatedOnePerLine() {
        var exporter = JSONExporter(utcOffset: .seconds(3600))
        let out = ExportFixtures.text(exporter.export([ExportFixtures.glucose, ExportFixtures.heart]))
        #expect(out == """
            [
            {"device":"dexcom","kind":"glucose","value":120,"unit":"mg/dL","trend":"FortyFiveDown","time":"2026-11-22T07:05:00+01:00","date":1795327500000,"sensor_time":864300,"sensor_run":"80AB12","origin":"live"},
            {"device":"hr1","kind":"heart-rate","value":72,"unit":"bpm","contact":"detected","time":"2026-11-22T07:08:00+01:00","date":1795327680000,"origin":"live"}
            ]

            """)
    }

    @Test func headerRestartsTheSeparatorState() {
        var exporter = JSONExporter(utcOffset: .zero)
        _ = exporter.export([ExportFixtures.glucose])
        // A reused exporter must not start its second array with a comma.
        #expect(ExportFixtures.text(exporter.header() + exporter.encode(ExportFixtures.meter)).hasPrefix("[\n{"))
    }

    @Test func rrIntervalsAreAnArrayOfMilliseconds() {
        let json = ExportFixtures.rr.exportJSON(utcOffset: .zero)
        #expect(json == #"{"device":"hr1","kind":"rr-intervals","value":[812.5,976.5625],"unit":"ms","time":"2026-11-22T06:09:00+00:00","date":1795327740000,"origin":"live"}"#)
    }

    @Test func backfillWithoutTrendLeavesTheTrendOut() {
        let json = ExportFixtures.glucoseNoTrend.exportJSON(utcOffset: .zero)
        #expect(json == #"{"device":"libre","kind":"glucose","value":97.6,"unit":"mg/dL","time":"2026-11-22T06:06:00+00:00","date":1795327560000,"origin":"backfill"}"#)
    }

    /// A follower's reading says where it came from (docs/followers.md).
    @Test func aFollowedReadingSaysSo() {
        var reading = ExportFixtures.glucoseNoTrend
        reading.origin = .followed
        #expect(reading.exportJSON(utcOffset: .zero).hasSuffix(#","origin":"followed"}"#))
    }
}
