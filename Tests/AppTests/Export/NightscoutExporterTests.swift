import Clocks
import Readings
import Testing
@testable import App

@Suite struct NightscoutExporterTests {
    let exporter = NightscoutExporter(utcOffset: .seconds(3600))

    @Test func sensorGlucoseIsAnSGVEntry() {
        // Field names and vocabulary from docs/peer-conventions.md §Nightscout entries (API v1
        // Entry).
        #expect(exporter.entry(for: ExportFixtures.glucose)
            == #"{"type":"sgv","sgv":120,"date":1795327500000,"dateString":"2026-11-22T07:05:00.000+01:00","direction":"FortyFiveDown","device":"vigil-dexcom","utcOffset":60}"#)
    }

    @Test func noTrendIsNONEAndSGVIsRoundedToAnInteger() {
        #expect(exporter.entry(for: ExportFixtures.glucoseNoTrend)
            == #"{"type":"sgv","sgv":98,"date":1795327560000,"dateString":"2026-11-22T07:06:00.000+01:00","direction":"NONE","device":"vigil-libre","utcOffset":60}"#)
    }

    /// The meter's Measurement Context goes in `notes`, the free-text field Nightscout's
    /// treatments use (its v1 entry schema has none; an entry keeps the field as it keeps
    /// `utcOffset`); without a context there is no `notes`.
    @Test func meterGlucoseIsAnMBGEntryWithoutDirection() {
        #expect(exporter.entry(for: ExportFixtures.meter)
            == #"{"type":"mbg","mbg":104,"date":1795327620000,"dateString":"2026-11-22T07:07:00.000+01:00","device":"vigil-meter","notes":"meal=preprandial;tester=self","utcOffset":60}"#)
        var plain = ExportFixtures.meter
        plain.value = .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104.4), context: nil)
        #expect(exporter.entry(for: plain)
            == #"{"type":"mbg","mbg":104,"date":1795327620000,"dateString":"2026-11-22T07:07:00.000+01:00","device":"vigil-meter","utcOffset":60}"#)
    }

    @Test(arguments: [
        (TrendDirection.doubleUp, "DoubleUp"), (.singleUp, "SingleUp"), (.fortyFiveUp, "FortyFiveUp"), (.flat, "Flat"),
        (.fortyFiveDown, "FortyFiveDown"), (.singleDown, "SingleDown"), (.doubleDown, "DoubleDown"),
        (.notComputable, "NOT COMPUTABLE"), (.rateOutOfRange, "RATE OUT OF RANGE"), (.none, "NONE"),
        (.tripleUp, "TripleUp"), (.tripleDown, "TripleDown"),
    ])
    func directionIsTheExactNightscoutString(_ trend: TrendDirection, _ name: String) {
        var reading = ExportFixtures.glucose
        reading.value = .glucose(GlucoseConcentration(milligramsPerDeciliter: 100), trend: trend)
        #expect(exporter.entry(for: reading)?.contains(#""direction":"\#(name)","#) == true)
    }

    @Test(arguments: [(20.0, 39), (38.4, 39), (39.0, 39), (39.5, 40), (401, 401)])
    func lowsAreNeverWrittenAsErrorCodes(_ mgdL: Double, _ sgv: Int) {
        var reading = ExportFixtures.glucose
        reading.value = .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdL), trend: .flat)
        #expect(exporter.entry(for: reading)?.contains(#""sgv":\#(sgv),"#) == true)
    }

    @Test func otherKindsAreSkippedWithoutBreakingTheArray() {
        var streaming = NightscoutExporter(utcOffset: .zero)
        for reading in [ExportFixtures.heart, ExportFixtures.rr, ExportFixtures.temperature, ExportFixtures.battery, ExportFixtures.energy, ExportFixtures.humidity] {
            #expect(streaming.entry(for: reading) == nil)
            #expect(streaming.encode(reading).isEmpty)
        }
        let out = ExportFixtures.text(streaming.export(ExportFixtures.everyKind))
        // Exactly the three glucose readings, the first without a leading comma.
        #expect(out.hasPrefix("[\n{\"type\":\"sgv\""))
        #expect(out.hasSuffix("}\n]\n"))
        #expect(out.split(separator: "\n").count == 5)
        #expect(out.split(separator: "\n").filter { $0.hasPrefix(",") }.isEmpty)
        let lines = out.split(separator: "\n")
        #expect(lines[1].hasSuffix("},") && lines[2].hasSuffix("},") && lines[3].hasSuffix("}"))
    }
}
