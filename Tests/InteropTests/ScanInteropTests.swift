import Foundation
import Testing

extension Interop {
    /// `vigil scan --hci tcp:127.0.0.1:PORT --seconds 4 --json` against the heart-rate rig.
    /// Contract: NDJSON, one object each time a device is first seen or its data changes,
    /// `{"address","addressType","rssi","name","services","appearance","connectable"}`, exit 0.
    @Suite(bumbleRequired) struct ScanInteropTests {
        /// Both report kinds: Bumble sends LE Extended Advertising Reports by default even after
        /// a legacy LE Set Scan Enable; `--legacy-reports` makes it send legacy 0x02 reports.
        @Test(arguments: [false, true])
        func scanSeesTheRig(legacyReports: Bool) throws {
            let rig = try Rig.launch(arguments: legacyReports ? ["--legacy-reports"] : [])
            defer { rig.stop() }
            let info = try rig.info()
            let address = try #require(info.string("address"))

            let result = try VigilProcess().run(
                ["scan"] + VigilProcess.hci(rig) + ["--seconds", "4", "--json"], timeout: .seconds(30))
            try #require(!result.timedOut && result.exitCode == 0, "\(result.summary)")
            #expect(result.duration < .seconds(15), "--seconds 4 took \(result.duration)")

            let objects = try result.ndjson()
            for object in objects {
                #expect(object.string("address")?.wholeMatch(of: /[0-9A-F]{2}(:[0-9A-F]{2}){5}/) != nil,
                        "address must be upper-case colon hex: \(object)")
                #expect(["public", "random"].contains(object.string("addressType") ?? ""), "\(object)")
            }
            let sightings = objects.filter { $0.string("address") == address }
            try #require(!sightings.isEmpty,
                         "rig \(address) not in the scan output:\n\(result.stdoutText.prefix(2_000))\n\(result.summary)")
            // Data only accumulates, so the latest line for the device is the complete picture.
            let latest = try #require(sightings.last)
            #expect(latest.string("addressType") == "random")
            #expect(latest.string("name") == info.string("name"))
            #expect(latest.strings("services").map(Set.init) == ["180D", "180F"])
            #expect(latest.int("appearance") == info.int("appearance"))
            #expect(latest.bool("connectable") == true)
            let rssi = try #require(latest.int("rssi"), "rssi missing: \(latest)")
            #expect((-127...20).contains(rssi))
            // "Whenever first seen or its data changes": two equal consecutive lines are noise.
            for (earlier, later) in zip(sightings, sightings.dropFirst()) {
                #expect(!NSDictionary(dictionary: earlier).isEqual(to: later),
                        "repeated identical line for \(address): \(later)")
            }
        }
    }
}
