import Alarms
import App
import Readings
import Testing
import Transmitters
import Wire

@Suite struct TransmitterInfoAlarmsTests {
    @Test func aPercentageIsAPercentage() {
        #expect(TransmitterInfo(battery: Percent(37)).batteryReports == [.percent(Percent(37)!)])
        #expect(TransmitterInfo(model: "x").batteryReports.isEmpty)
    }

    /// The text the Dexcom driver writes (`"battery " + BatteryStatusRx.summary`), built from
    /// the CGMBLEKit sample reply `23 00 3c 01 2f 01 cd 02 1f 24 7b ae`
    /// (docs/protocols/dexcom-g5-g6.md §Control messages): voltage A 0x013C = 316, B 0x012F = 303,
    /// 717 Ω, 31 days, 36 °C.
    @Test func dexcomVoltageAFromTheDriversSummary() throws {
        let reply = try Dexcom.BatteryStatusRx(decoding: [UInt8](hex: "23003c012f01cd021f247bae"))
        let info = TransmitterInfo(hardware: "battery \(reply.summary)")
        #expect(info.hardware == "battery A 3.16 V, B 3.03 V, 717 Ω, 31 days, 36 °C")
        #expect(info.batteryReports == [.voltage(millivolts: 3160)])
    }

    @Test func dexcomLowBatteryStatusIsTheTransmittersVerdict() {
        let reply = Dexcom.BatteryStatusRx(status: .init(rawValue: 0x81), voltageA: 295, voltageB: 280, resistance: nil,
                                           runtimeDays: nil, temperatureCelsius: 20)
        #expect(TransmitterInfo(hardware: "battery \(reply.summary)").batteryReports
            == [.voltage(millivolts: 2950), .deviceSaysLow(true)])
    }

    @Test(arguments: ["battery A 3.1 V, B 3.03 V", "battery A x.16 V", "battery B 3.16 V", "battery A 3.16V",
                      "hardware 1.0, A 3.16 V", "battery A -3.16 V"])
    func malformedVoltagesAreIgnored(_ text: String) {
        #expect(TransmitterInfo(hardware: text).batteryReports.isEmpty)
    }

    @Test func cgmServiceAndMeterBatteryNotes() {
        #expect(TransmitterInfo(sensorState: CGMStatusBits([.deviceBatteryLow, .calibrationRecommended]).description)
            .batteryReports == [.deviceSaysLow(true)])
        #expect(TransmitterInfo(sensorState: CGMStatusBits([.calibrationRecommended]).description).batteryReports
            == [.deviceSaysLow(false)])
        // "ok" (no bits) is also a Dexcom calibration state: it must not clear a Dexcom's
        // voltage alarm, so it says nothing about batteries.
        #expect(TransmitterInfo(sensorState: CGMStatusBits().description).batteryReports.isEmpty)
        #expect(TransmitterInfo(sensorState: "meter battery low").batteryReports == [.deviceSaysLow(true)])
        #expect(TransmitterInfo(sensorState: "warmup").batteryReports.isEmpty)
    }
}
