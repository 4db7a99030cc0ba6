import Foundation
import Testing

extension Interop {
    /// `vigil gatt ADDRESS --hci tcp:... [--json]` against the heart-rate rig; the expected
    /// values come from the rig's own `{"rig":...}` line, never from constants here.
    @Suite(bumbleRequired) struct GattInteropTests {
        @Test func gattListsHeartRateBatteryAndDeviceInformationWithValues() throws {
            let rig = try Rig.launch()
            defer { rig.stop() }
            let info = try rig.info()
            let address = try #require(info.string("address"))
            let dis = try #require(info.object("deviceInformation"))

            let result = try VigilProcess().run(
                ["gatt", address] + VigilProcess.hci(rig) + ["--json"], timeout: .seconds(45))
            try #require(!result.timedOut && result.exitCode == 0, "\(result.summary)")
            let document = try result.jsonDocument()
            #expect(document.string("address") == address)
            let services = try #require(document.objects("services"), "no services: \(document)")

            // Handle ranges: ascending, non-overlapping, each attribute inside its service.
            var previousEnd = 0
            for service in services {
                let start = try #require(service.int("start")), end = try #require(service.int("end"))
                #expect(previousEnd < start && start <= end, "bad range in \(service)")
                previousEnd = end
                for characteristic in service.objects("characteristics") ?? [] {
                    let handle = try #require(characteristic.int("handle"))
                    let valueHandle = try #require(characteristic.int("valueHandle"))
                    #expect(start < handle && handle <= valueHandle && valueHandle <= end, "\(characteristic)")
                    for descriptor in characteristic.objects("descriptors") ?? [] {
                        let descriptorHandle = try #require(descriptor.int("handle"))
                        #expect(valueHandle < descriptorHandle && descriptorHandle <= end, "\(descriptor)")
                    }
                }
            }

            func characteristic(_ uuid: String, in serviceUUID: String) -> JSONObject? {
                services.first { $0.string("uuid") == serviceUUID }?
                    .objects("characteristics")?.first { $0.string("uuid") == uuid }
            }
            func value(_ uuid: String, in serviceUUID: String) -> String? {
                characteristic(uuid, in: serviceUUID)?.string("value")?.lowercased()
            }
            func utf8Hex(_ text: String?) -> String? {
                text.map { Array($0.utf8).map { String(format: "%02x", $0) }.joined() }
            }

            // Heart Rate 180D: measurement notifies through a CCCD, location reads "chest".
            let measurement = try #require(characteristic("2A37", in: "180D"), "no 2A37 in \(services)")
            #expect(measurement.strings("properties")?.contains("notify") == true)
            #expect(measurement.objects("descriptors")?.contains { $0.string("uuid") == "2902" } == true)
            #expect(measurement.has("value") == false, "2A37 is not readable")
            #expect(value("2A38", in: "180D") == "01")
            #expect(characteristic("2A39", in: "180D")?.strings("properties")?.contains("write") == true)

            // Battery 180F: read + notify; the rig starts at 87 % (0x57) and only drops once
            // notifications flow, which `gatt` does not subscribe to.
            let battery = try #require(characteristic("2A19", in: "180F"))
            #expect(Set(battery.strings("properties") ?? []).isSuperset(of: ["read", "notify"]))
            #expect(value("2A19", in: "180F") == "57")

            // Device Information 180A: every string and both binary fields as the rig serves them.
            #expect(value("2A29", in: "180A") == utf8Hex(dis.string("manufacturer")))
            #expect(value("2A24", in: "180A") == utf8Hex(dis.string("model")))
            #expect(value("2A25", in: "180A") == utf8Hex(dis.string("serial")))
            #expect(value("2A26", in: "180A") == utf8Hex(dis.string("firmware")))
            #expect(value("2A27", in: "180A") == utf8Hex(dis.string("hardware")))
            #expect(value("2A28", in: "180A") == utf8Hex(dis.string("software")))
            #expect(value("2A23", in: "180A") == dis.string("systemId"))
            #expect(value("2A50", in: "180A") == dis.string("pnpId"))
        }

        @Test func gattWithoutJSONPrintsAHumanTable() throws {
            let rig = try Rig.launch()
            defer { rig.stop() }
            let address = try #require(try rig.info().string("address"))
            let result = try VigilProcess().run(["gatt", address] + VigilProcess.hci(rig), timeout: .seconds(45))
            try #require(!result.timedOut && result.exitCode == 0, "\(result.summary)")
            let table = result.stdoutText
            #expect((try? NDJSON.parseDocument(table)) == nil, "without --json the output is a table, not JSON")
            #expect(table.uppercased().contains("180D") || table.contains("Heart Rate"), "\(table.prefix(2_000))")
            #expect(table.uppercased().contains("2A37") || table.contains("Heart Rate Measurement"))
        }
    }
}
