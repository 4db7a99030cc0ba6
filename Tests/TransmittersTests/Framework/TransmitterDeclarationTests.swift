import Testing
@testable import Transmitters

@Suite struct TransmitterDeclarationTests {
    @Test func alarmsAreTheCategorysAndTheTypesOwn() {
        let plain = TransmitterDeclaration(category: .heartRate, fuzzTarget: "heart-rate")
        #expect(plain.alarms == [.heartRate])
        let extra = TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "x", extraAlarms: [.batteryVoltage])
        #expect(extra.alarms == [.sensorLife, .batteryVoltage])
    }

    @Test func sensorLifeIsNilUnlessDeclared() {
        #expect(TransmitterDeclaration(category: .glucoseMeter, fuzzTarget: "m").defaultSensorLife(options: [:]) == nil)
        let libre = TransmitterDeclaration(category: .continuousGlucose, fuzzTarget: "libre", sensorLife: .seconds(14 * 24 * 3600))
        #expect(libre.defaultSensorLife(options: ["anything": "1"]) == .seconds(336 * 3600))
    }

    /// G5 transmitter IDs start with 4, and G5 sensors last 7 days instead of the G6's 10.
    @Test func dexcomSensorLifeFollowsTheTransmitterID() {
        let dexcom = DexcomDriver.declaration
        #expect(dexcom.defaultSensorLife(options: ["transmitter-id": "811234"]) == .seconds(240 * 3600))
        #expect(dexcom.defaultSensorLife(options: ["transmitter-id": "4G1234"]) == .seconds(168 * 3600))
    }
}
