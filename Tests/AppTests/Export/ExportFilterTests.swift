import Clocks
import Readings
import Testing
@testable import App

@Suite struct ExportFilterTests {
    @Test func sinceIsInclusiveAndUntilExclusive() {
        let filter = ExportFilter(since: ExportFixtures.at(minutes: 1), until: ExportFixtures.at(minutes: 3))
        let kept = ExportFixtures.everyKind.filter(filter.includes)
        #expect(kept == [ExportFixtures.glucoseNoTrend, ExportFixtures.meter])
    }

    @Test func kindAndDeviceNarrowTheExport() {
        #expect(ExportFixtures.everyKind.filter(ExportFilter(kind: .glucose).includes) == [ExportFixtures.glucose, ExportFixtures.glucoseNoTrend])
        #expect(ExportFixtures.everyKind.filter(ExportFilter(device: "hr1").includes) == [ExportFixtures.heart, ExportFixtures.rr, ExportFixtures.energy])
        #expect(ExportFixtures.everyKind.filter(ExportFilter(kind: .battery, device: "dexcom").includes) == [ExportFixtures.battery])
        #expect(ExportFixtures.everyKind.filter(ExportFilter.all.includes) == ExportFixtures.everyKind)
    }

    @Test func consecutiveWindowsNeitherMissNorRepeat() {
        let split = ExportFixtures.at(minutes: 4)
        let first = ExportFixtures.everyKind.filter(ExportFilter(until: split).includes)
        let second = ExportFixtures.everyKind.filter(ExportFilter(since: split).includes)
        #expect(first + second == ExportFixtures.everyKind)
    }

    @Test func anInvertedWindowIsEmpty() {
        #expect(ExportFilter(since: ExportFixtures.at(minutes: 3), until: ExportFixtures.at(minutes: 3)).isEmpty)
        #expect(!ExportFilter(since: ExportFixtures.at(minutes: 3), until: ExportFixtures.at(minutes: 4)).isEmpty)
        #expect(!ExportFilter(since: ExportFixtures.at(minutes: 3)).isEmpty)
    }
}
