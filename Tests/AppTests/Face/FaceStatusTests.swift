import Alarms
import App
import Clocks
import Testing

@Suite struct FaceStatusTests {
    let now = MonotonicInstant(nanoseconds: 3_600_000_000_000)

    @Test func nothingActiveIsAllWell() {
        #expect(FaceStatus.line(for: [], at: now) == "all well")
    }

    @Test func soundingFirstThenSnoozedWithMinutesRoundedUp() {
        let alarms = [
            ActiveAlarm(kind: .glucose(.urgentLow), raisedAt: now - .seconds(60), status: .sounding(escalatesAt: now + .seconds(240))),
            ActiveAlarm(kind: .glucose(.low), raisedAt: now - .seconds(600), status: .snoozed(until: now + .seconds(61))),
            ActiveAlarm(kind: .fault(.storageFailing), raisedAt: now, status: .escalated),
            ActiveAlarm(kind: .signalLoss("g6"), raisedAt: now, status: .awaitingFreshData),
        ]
        #expect(FaceStatus.line(for: alarms, at: now)
                == "urgent-low SOUNDING (high) · low snoozed 2 min more · fault:storage-failing SOUNDING, escalated (low) · signal-loss:g6 waiting for fresh data")
    }

    @Test func aSnoozeThatJustEndedShowsZeroNotNegative() {
        let alarm = ActiveAlarm(kind: .glucose(.high), raisedAt: now, status: .snoozed(until: now - .seconds(5)))
        #expect(FaceStatus.line(for: [alarm], at: now) == "high snoozed 0 min more")
    }
}
