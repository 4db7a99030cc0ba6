import Clocks
import Readings
import Testing
@testable import App

@Suite struct NDJSONExporterTests {
    @Test func oneObjectPerLineAndNothingElse() {
        var exporter = NDJSONExporter(utcOffset: .zero)
        #expect(exporter.header().isEmpty && exporter.footer().isEmpty)
        let out = ExportFixtures.text(exporter.export(ExportFixtures.everyKind))
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == ExportFixtures.everyKind.count + 1 && lines.last == "")
        #expect(lines.allSatisfy { $0.isEmpty || ($0.hasPrefix("{\"device\":") && $0.hasSuffix("}")) })
        #expect(lines[2] == #"{"device":"meter","kind":"meter-glucose","value":104.4,"unit":"mg/dL","context":"meal=preprandial;tester=self","#
            + #""time":"2026-11-22T06:07:00+00:00","date":1795327620000,"sensor_time":12,"sensor_run":"2026-11-22T07:07:00","origin":"live"}"#)
        #expect(lines[5] == #"{"device":"fridge","kind":"temperature","value":4.5,"unit":"°C","time":"2026-11-22T06:10:00+00:00","date":1795327800000,"origin":"live"}"#)
    }
}
