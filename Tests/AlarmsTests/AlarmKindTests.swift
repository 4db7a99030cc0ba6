import Readings
import Testing
@testable import Alarms

@Suite struct AlarmKindTests {
    static let all: [AlarmKind] = GlucoseAlarm.allCases.map(AlarmKind.glucose)
        + ApplianceFault.allCases.map(AlarmKind.fault) + [.signalLoss("hr1"), .signalLoss("my dexcom")]
        + DeviceAlarm.allCases.map { AlarmKind.device($0, "g6") } + [.device(.temperatureHigh, "fridge:door")]

    @Test(arguments: all)
    func nameRoundTrips(_ kind: AlarmKind) {
        #expect(AlarmKind(name: kind.name) == kind)
    }

    @Test func namesAreStable() {
        #expect(AlarmKind.all.map(\.name) == [
            "urgent-low", "urgent-low-soon", "low", "high", "urgent-high", "rising-fast", "falling-fast",
            "fault:no-controller", "fault:controller-lost", "fault:storage-failing", "fault:clock-not-set",
            "fault:configuration-problem", "fault:face-failing", "signal-loss:hr1", "signal-loss:my dexcom",
            "sensor-warmup:g6", "sensor-expiring:g6", "sensor-ended:g6", "battery-low:g6", "heart-rate-low:g6",
            "heart-rate-high:g6", "temperature-low:g6", "temperature-high:g6", "temperature-high:fridge:door",
        ])
        for bad in ["", "Low", "signal-loss:", "fault:", "fault:fire", "urgent low", "sensor-warmup:", "sensor-warmup",
                    "battery-low", "heart-rate:hr1", "Sensor-ended:g6"] {
            #expect(AlarmKind(name: bad) == nil)
        }
    }

    @Test func prioritiesAndPulses() {
        #expect(AlarmKind.all.filter { $0.priority == .high }.map(\.name) == ["urgent-low", "urgent-low-soon"])
        #expect(AlarmKind.all.filter { $0.priority == .low }.map(\.name) == [
            "high", "rising-fast", "fault:storage-failing", "fault:clock-not-set",
            "sensor-warmup:g6", "sensor-expiring:g6", "battery-low:g6"])
        #expect(AlarmPriority.allCases.map(\.pulsesPerBurst) == [1, 3, 10])
        #expect(AlarmPriority.low < .medium && AlarmPriority.medium < .high)
    }

    @Test func snoozeAllCoversWhatLeavesGlucoseWatched() {
        // Not urgent low, signal loss, faults or an ended sensor: while those stand, nothing
        // would sound for an urgent low.
        #expect(AlarmKind.all.filter(\.isCoveredBySnoozeAll).map(\.name) == [
            "urgent-low-soon", "low", "high", "urgent-high", "rising-fast", "falling-fast",
            "sensor-warmup:g6", "sensor-expiring:g6", "battery-low:g6", "heart-rate-low:g6",
            "heart-rate-high:g6", "temperature-low:g6", "temperature-high:g6", "temperature-high:fridge:door"])
    }

    @Test func informationalAlarmsChirpAndSomeRemindDaily() {
        #expect(AlarmKind.all.filter(\.isInformational).map(\.name) == [
            "sensor-warmup:g6", "sensor-expiring:g6", "battery-low:g6"])
        #expect(AlarmKind.device(.sensorWarmUp, "g6").reminderInterval == nil)
        #expect(AlarmKind.device(.sensorExpiring, "g6").reminderInterval == .seconds(24 * 3600))
        #expect(AlarmKind.device(.batteryLow, "g6").reminderInterval == .seconds(24 * 3600))
        #expect(AlarmKind.all.filter { !$0.isInformational }.allSatisfy { $0.reminderInterval == nil })
    }

    @Test func deviceAlarmSnoozeBounds() {
        let hours: [DeviceAlarm: Int] = [.sensorWarmUp: 2, .sensorExpiring: 24, .sensorEnded: 2, .batteryLow: 24,
                                         .heartRateLow: 2, .heartRateHigh: 2, .temperatureLow: 4, .temperatureHigh: 4]
        for alarm in DeviceAlarm.allCases {
            #expect(AlarmKind.device(alarm, "d").maximumSnooze == .seconds(hours[alarm]! * 3600), "\(alarm)")
        }
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
