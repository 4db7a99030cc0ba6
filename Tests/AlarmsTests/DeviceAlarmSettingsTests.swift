import Readings
import Testing
@testable import Alarms

/// The documented defaults, field by field: a changed default must be a decision, not a slip.
@Suite struct DeviceAlarmSettingsTests {
    @Test func anUnconfiguredDeviceHasOnlyTheBasics() {
        let settings = DeviceAlarmSettings()
        #expect(settings.sensorLife == nil)
        #expect(settings.sensorExpiringWarning == .seconds(24 * 3600))
        #expect(settings.batteryLowBelow == Percent(20))
        #expect(settings.batteryLowBelowMillivolts == nil)
        #expect(settings.heartRate == nil)
        #expect(settings.temperature == nil)
        #expect(DeviceAlarmSettings.batteryClearingMargin == 5)
        #expect(DeviceAlarmSettings.batteryClearingMarginMillivolts == 50)
    }

    @Test func heartRateLimitsDefaults() {
        let limits = HeartRateLimits()
        #expect(limits.low == BeatsPerMinute(40))
        #expect(limits.high == BeatsPerMinute(150))
        #expect(limits.sustainedFor == .seconds(60))
        #expect(HeartRateLimits.clearingMargin == 5)
    }

    @Test func insulinFridgeDefaults() {
        let limits = TemperatureLimits()
        #expect(limits.low == Temperature(degreesCelsius: 2))
        #expect(limits.high == Temperature(degreesCelsius: 8))
        #expect(limits.outOfRangeFor == .seconds(30 * 60))
        #expect(limits.freezing == Temperature(degreesCelsius: 0))
        #expect(limits.freezingFor == .seconds(5 * 60))
        #expect(TemperatureLimits.clearingMargin == 0.5)
    }
}
