import Clocks
import Readings
import Testing
@testable import Alarms

@Suite struct AlarmEngineStateTests {
    /// Every status, "snooze all", and a device name with a space, saved at minute 10.
    let state = AlarmEngine.State(
        alarms: [
            .urgentLow: ActiveAlarm(kind: .urgentLow, raisedAt: minute(7), status: .sounding(escalatesAt: minute(12))),
            .signalLoss("bedroom dexcom"): ActiveAlarm(kind: .signalLoss("bedroom dexcom"), raisedAt: minute(0),
                                                       status: .escalated),
            .fault(.clockNotSet): ActiveAlarm(kind: .fault(.clockNotSet), raisedAt: minute(1),
                                              status: .snoozed(until: minute(70))),
            .glucose(.low): ActiveAlarm(kind: .glucose(.low), raisedAt: minute(9), status: .awaitingFreshData),
        ],
        snoozeAllUntil: minute(130))

    /// Hand-written from the format in `AlarmEngine.State`'s doc comment: times are
    /// milliseconds relative to the save (minute 10), alarms sorted by name.
    let text = """
        vigil-alarms 1
        snooze-all 7200000
        alarm snoozed 3600000 540000 fault:clock-not-set
        alarm awaiting-fresh-data - 60000 low
        alarm escalated - 600000 signal-loss:bedroom dexcom
        alarm sounding 120000 180000 urgent-low

        """

    @Test func writesTheDocumentedFormat() {
        #expect(state.text(at: minute(10)) == text)
    }

    @Test func readsBackRebasedOntoTheNewClock() throws {
        let restored = try AlarmEngine.State(text: text, at: minute(100))
        #expect(restored.snoozeAllUntil == minute(220))
        #expect(restored.alarms.count == 4)
        #expect(restored.alarms[.urgentLow] == ActiveAlarm(
            kind: .urgentLow, raisedAt: minute(97), status: .sounding(escalatesAt: minute(102))))
        #expect(restored.alarms[.signalLoss("bedroom dexcom")] == ActiveAlarm(
            kind: .signalLoss("bedroom dexcom"), raisedAt: minute(90), status: .escalated))
        #expect(restored.alarms[.fault(.clockNotSet)] == ActiveAlarm(
            kind: .fault(.clockNotSet), raisedAt: minute(91), status: .snoozed(until: minute(160))))
        #expect(restored.alarms[.glucose(.low)] == ActiveAlarm(
            kind: .glucose(.low), raisedAt: minute(99), status: .awaitingFreshData))
        #expect(restored.text(at: minute(100)) == text)
    }

    /// The device channels and the quiet status of informational alarms, saved at minute 10.
    @Test func deviceAlarmsAndQuietStatusRoundTrip() throws {
        let saved = AlarmEngine.State(alarms: [
            .device(.sensorWarmUp, "g6"): ActiveAlarm(kind: .device(.sensorWarmUp, "g6"), raisedAt: minute(2),
                                                      status: .quiet(remindsAt: nil)),
            .device(.batteryLow, "bridge"): ActiveAlarm(kind: .device(.batteryLow, "bridge"), raisedAt: minute(4),
                                                        status: .quiet(remindsAt: minute(1440))),
            .device(.temperatureHigh, "fridge"): ActiveAlarm(kind: .device(.temperatureHigh, "fridge"), raisedAt: minute(8),
                                                             status: .snoozed(until: minute(70))),
            .device(.sensorEnded, "g6"): ActiveAlarm(kind: .device(.sensorEnded, "g6"), raisedAt: minute(9),
                                                     status: .sounding(escalatesAt: minute(14))),
        ])
        let text = """
            vigil-alarms 1
            alarm quiet 85800000 360000 battery-low:bridge
            alarm sounding 240000 60000 sensor-ended:g6
            alarm quiet - 480000 sensor-warmup:g6
            alarm snoozed 3600000 120000 temperature-high:fridge

            """
        #expect(saved.text(at: minute(10)) == text)
        let restored = try AlarmEngine.State(text: text, at: minute(1000))
        #expect(restored.alarms[.device(.batteryLow, "bridge")] == ActiveAlarm(
            kind: .device(.batteryLow, "bridge"), raisedAt: minute(994), status: .quiet(remindsAt: minute(2430))))
        #expect(restored.alarms[.device(.sensorWarmUp, "g6")]?.status == .quiet(remindsAt: nil))
        #expect(restored.alarms[.device(.sensorEnded, "g6")]?.status == .sounding(escalatesAt: minute(1004)))
        #expect(restored.text(at: minute(1000)) == text)
    }

    @Test func pastDeadlinesAndAnExpiredSnoozeAllSaveAsNow() {
        let overdue = AlarmEngine.State(
            alarms: [.urgentLow: ActiveAlarm(kind: .urgentLow, raisedAt: minute(0), status: .snoozed(until: minute(5)))],
            snoozeAllUntil: minute(4))
        #expect(overdue.text(at: minute(6)) == "vigil-alarms 1\nalarm snoozed 0 360000 urgent-low\n")
    }

    @Test func emptyStateRoundTrips() throws {
        #expect(AlarmEngine.State().text(at: minute(3)) == "vigil-alarms 1\n")
        #expect(try AlarmEngine.State(text: "vigil-alarms 1\n", at: .zero) == AlarmEngine.State())
    }

    struct Rejection: Sendable, CustomTestStringConvertible {
        var text: String
        var error: AlarmStateError
        var testDescription: String { "\(error)" }
    }

    @Test(arguments: [
        Rejection(text: "", error: .missingHeader),
        Rejection(text: "alarm sounding 0 0 low\n", error: .missingHeader),
        Rejection(text: "vigil-alarms 2\n", error: .unsupportedVersion("2")),
        Rejection(text: "vigil-alarms 1\nalarm sounding 0 0\n", error: .malformedLine(number: 2, line: "alarm sounding 0 0")),
        Rejection(text: "vigil-alarms 1\nalarm sounding x 0 low", error: .malformedLine(number: 2, line: "alarm sounding x 0 low")),
        Rejection(text: "vigil-alarms 1\nalarm snoozed -5 0 low", error: .malformedLine(number: 2, line: "alarm snoozed -5 0 low")),
        Rejection(text: "vigil-alarms 1\nalarm sounding 0 0.5 low", error: .malformedLine(number: 2, line: "alarm sounding 0 0.5 low")),
        Rejection(text: "vigil-alarms 1\nalarm ringing 0 0 low", error: .unknownStatus(number: 2, status: "ringing")),
        Rejection(text: "vigil-alarms 1\nalarm escalated 5 0 low", error: .unknownStatus(number: 2, status: "escalated")),
        Rejection(text: "vigil-alarms 1\nalarm sounding 0 0 very-low", error: .unknownAlarm(number: 2, name: "very-low")),
        Rejection(text: "vigil-alarms 1\nalarm sounding 0 0 fault:fire", error: .unknownAlarm(number: 2, name: "fault:fire")),
        Rejection(text: "vigil-alarms 1\nalarm sounding 0 0 signal-loss:", error: .unknownAlarm(number: 2, name: "signal-loss:")),
        Rejection(text: "vigil-alarms 1\nalarm escalated - 0 low\nalarm escalated - 0 low",
                  error: .duplicateAlarm(number: 3, name: "low")),
        Rejection(text: "vigil-alarms 1\nsnooze-all\n", error: .malformedLine(number: 2, line: "snooze-all")),
        Rejection(text: "vigil-alarms 1\nsnooze-all 10 20\n", error: .malformedLine(number: 2, line: "snooze-all 10 20")),
        Rejection(text: "vigil-alarms 1\nbuzzer on\n", error: .malformedLine(number: 2, line: "buzzer on")),
        Rejection(text: "vigil-alarms 1\nalarm quiet x 0 battery-low:g6", error: .malformedLine(number: 2, line: "alarm quiet x 0 battery-low:g6")),
        Rejection(text: "vigil-alarms 1\nalarm quiet - 0 battery-low:", error: .unknownAlarm(number: 2, name: "battery-low:")),
        Rejection(text: "vigil-alarms 1\nalarm quiet - 0 fridge-warm:f", error: .unknownAlarm(number: 2, name: "fridge-warm:f")),
    ])
    func rejectsMalformedText(_ rejection: Rejection) {
        #expect(throws: rejection.error) { try AlarmEngine.State(text: rejection.text, at: .zero) }
    }
}
