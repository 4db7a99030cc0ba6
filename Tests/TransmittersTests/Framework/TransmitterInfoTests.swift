import Readings
import Testing
@testable import Transmitters

@Suite struct TransmitterInfoTests {
    @Test func mergingKeepsOldFieldsAndTakesNewOnes() {
        let old = TransmitterInfo(battery: Percent(80), manufacturer: "Polar", firmware: "1.0")
        let new = TransmitterInfo(battery: Percent(79), model: "H10")
        let merged = old.merging(new)
        #expect(merged == TransmitterInfo(battery: Percent(79), manufacturer: "Polar", model: "H10", firmware: "1.0"))
        #expect(merged.description == "battery 79 %, manufacturer Polar, model H10, firmware 1.0")
        #expect(TransmitterInfo().description == "(empty)")
    }

    @Test func setsDeviceInformationFields() {
        var info = TransmitterInfo()
        for field in DeviceInformationString.allCases { info.set(field, to: "\(field)") }
        #expect(info == TransmitterInfo(manufacturer: "manufacturer name", model: "model number", serialNumber: "serial number",
                                        firmware: "firmware revision", hardware: "hardware revision", software: "software revision"))
    }
}
