import Alarms
import Clocks
import Readings
import Testing
@testable import App

/// `[alarms]` mapped into the engine's `AlarmConfiguration`.
@Suite struct VigilConfigurationAlarmsTests {
    func mgdl(_ value: Double) -> GlucoseConcentration { GlucoseConcentration(milligramsPerDeciliter: value) }

    @Test func theDefaultsAreTheEnginesDefaults() {
        let devices: [DeviceID] = ["dexcom-g6", "miaomiao"]
        #expect(VigilConfiguration.Alarms().alarmConfiguration(watchedDevices: devices)
            == AlarmConfiguration(watchedDevices: devices))
    }

    @Test func thresholdsSignalLossAndOffsetCarryOver() throws {
        let config = try VigilConfiguration(parsing: """
            [alarms]
            urgent-low = 60
            high = 200
            rising-fast = 3
            signal-loss-minutes = 15
            utc-offset = "-05:00"
            """, knownDeviceTypes: [])
        let engine = config.alarms.alarmConfiguration(watchedDevices: ["cgm"])
        #expect(engine.thresholds == config.alarms.thresholds)
        #expect(engine.thresholds.urgentLow == mgdl(60) && engine.thresholds.high == mgdl(200))
        #expect(engine.thresholds.risingFast == GlucoseRate(milligramsPerDeciliterPerMinute: 3))
        #expect(engine.signalLossAfter == .seconds(15 * 60))
        #expect(engine.utcOffset == .seconds(-5 * 3600))
        #expect(engine.watchedDevices == ["cgm"])
        #expect(engine.profiles.isEmpty)
    }

    @Test func theNightProfileAppliesBetweenFromAndToLocalTime() throws {
        let config = try VigilConfiguration(parsing: """
            [alarms]
            low = 75
            high = 200
            utc-offset = "+02:00"

            [alarms.night]
            from = "22:00"
            to = "07:00"
            low = 65
            high = false
            """, knownDeviceTypes: [])
        let engine = config.alarms.alarmConfiguration(watchedDevices: [])
        #expect(engine.profiles.count == 1)
        // 2026-01-01T00:00:00Z, a whole number of days after the epoch: local 02:00, night.
        let midnightUTC = WallClockTime(secondsSinceEpoch: 1_767_225_600)
        let night = engine.thresholds(at: midnightUTC)
        #expect(night.low == mgdl(65) && night.high == nil)
        // The night keeps the day's urgent thresholds.
        #expect(night.urgentLow == mgdl(55) && night.urgentHigh == mgdl(300))
        #expect(night.urgentLowSoonHorizon == .seconds(20 * 60))
        // 19:59 UTC = 21:59 local: still day. 20:00 UTC = 22:00 local: night begins.
        #expect(engine.thresholds(at: midnightUTC + .seconds(19 * 3600 + 59 * 60)).low == mgdl(75))
        #expect(engine.thresholds(at: midnightUTC + .seconds(20 * 3600)).low == mgdl(65))
        // 05:00 UTC = 07:00 local: day again.
        let morning = engine.thresholds(at: midnightUTC + .seconds(5 * 3600))
        #expect(morning.low == mgdl(75) && morning.high == mgdl(200))
        // No wall-clock time: the day thresholds.
        #expect(engine.thresholds(at: nil) == engine.thresholds)
    }
}
