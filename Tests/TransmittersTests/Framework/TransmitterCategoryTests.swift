import Testing
@testable import Transmitters

@Suite struct TransmitterCategoryTests {
    @Test func onlyContinuousGlucoseIsWatchedForSignalLoss() {
        #expect(TransmitterCategory.allCases.filter(\.isWatchedForSignalLoss) == [.continuousGlucose])
    }

    @Test func alarmsByCategory() {
        #expect(TransmitterCategory.continuousGlucose.alarms == [.sensorLife])
        #expect(TransmitterCategory.glucoseMeter.alarms.isEmpty)
        #expect(TransmitterCategory.heartRate.alarms == [.heartRate])
        #expect(TransmitterCategory.thermometer.alarms == [.temperature])
    }

    @Test func describesItself() {
        #expect("\(TransmitterCategory.continuousGlucose)" == "continuous glucose")
        #expect("\(TransmitterCategory.thermometer)" == "thermometer")
    }
}
