import Readings
import Testing
@testable import Alarms

@Suite struct AlarmKindTests {
    static let all: [AlarmKind] = GlucoseAlarm.allCases.map(AlarmKind.glucose)
        + ApplianceFault.allCases.map(AlarmKind.fault) + [.signalLoss("hr1"), .signalLoss("my dexcom")]

    @Test(arguments: all)
    func nameRoundTrips(_ kind: AlarmKind) {
        #expect(AlarmKind(name: kind.name) == kind)
    }

    @Test func namesAreStable() {
        #expect(AlarmKind.all.map(\.name) == [
            "urgent-low", "urgent-low-soon", "low", "high", "urgent-high", "rising-fast", "falling-fast",
            "fault:no-controller", "fault:controller-lost", "fault:storage-failing", "fault:clock-not-set",
            "fault:configuration-problem", "signal-loss:hr1", "signal-loss:my dexcom",
        ])
        for bad in ["", "Low", "signal-loss:", "fault:", "fault:fire", "urgent low"] { #expect(AlarmKind(name: bad) == nil) }
    }

    @Test func prioritiesAndPulses() {
        #expect(AlarmKind.all.filter { $0.priority == .high }.map(\.name) == ["urgent-low", "urgent-low-soon"])
        #expect(AlarmKind.all.filter { $0.priority == .low }.map(\.name) == [
            "high", "rising-fast", "fault:storage-failing", "fault:clock-not-set"])
        #expect(AlarmPriority.allCases.map(\.pulsesPerBurst) == [1, 3, 10])
        #expect(AlarmPriority.low < .medium && AlarmPriority.medium < .high)
    }

    @Test func onlyGlucoseAlarmsOtherThanUrgentLowAreCoveredBySnoozeAll() {
        #expect(AlarmKind.all.filter(\.isCoveredBySnoozeAll).map(\.name) == [
            "urgent-low-soon", "low", "high", "urgent-high", "rising-fast", "falling-fast"])
    }

    @Test func urgentLowNeverSnoozesOrAcknowledgesPastThirtyMinutes() {
        #expect(AlarmKind.urgentLow.maximumSnooze == .seconds(1800))
        #expect(AlarmKind.urgentLow.acknowledgementInterval == .seconds(1800))
        for kind in AlarmKind.all { #expect(kind.acknowledgementInterval <= kind.maximumSnooze) }
    }
}

extension AlarmKind {
    static var all: [AlarmKind] { AlarmKindTests.all }
}
