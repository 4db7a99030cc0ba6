import Foundation
import Testing

extension Interop {
    /// Hostile conditions around the Dexcom: the handshake dropped at every step, and
    /// 100 garbage advertisers around the legitimate devices and a BTHome thermometer, all on
    /// ONE Bumble controller (`Tests/Rigs/hostile_peers.py`). Expected values come from the
    /// rig's logs. About 15-25 s each.
    @Suite(bumbleRequired) struct HostileDexcomInteropTests {
        static let dropSteps = ["after-connect", "after-auth-request", "after-challenge", "after-bond-request",
                                "mid-glucose", "mid-backfill"]

        @Test func theDexcomHandshakeDroppedAtEveryStepStillEndsInGlucoseAndTheAlarm() throws {
            let rig = try HostileRig.launch("none", [
                "--with-dexcom", "--dexcom-glucose-mgdl", "50", "--dexcom-drop-at", Self.dropSteps.joined(separator: ","),
            ])
            defer { rig.stop() }
            let state = try StateDirectory()
            let config = try state.writeConfig(HostileRig.config(hostile: false, dexcom: true))
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 22, waitForClientClose: true) { run in
                let drops = run.rigRecords.filter { $0.string("event") == "link-dropped-at" }.count
                guard drops == Self.dropSteps.count, let lastDrop = run.rigRecords.lastIndex(where: { $0.string("event") == "link-dropped-at" })
                else { return false }
                return run.rigRecords[(lastDrop + 1)...].contains { $0.string("sent") == "glucose" }
                    && run.events(named: "disconnected", address: HostileRig.dexcomAddress).count >= drops
                    && run.legitimateDevicesServed(heartRate: 50)
            }
            try run.expectCleanExit()
            run.expectHeartRateOneForOne(minimum: 50)

            // The rig dropped the link once at each step, in the order the handshake reaches them.
            let drops = run.rigRecords.filter { $0.string("event") == "link-dropped-at" }.compactMap { $0.string("step") }
            #expect(drops == Self.dropSteps, "drops: \(drops)\n\(Interop.DexcomInteropTests.rigLog(run))\n\(run.diagnostics)")
            // Vigil saw each drop as a disconnection and came back every time.
            let dexcom = HostileRig.dexcomAddress
            let disconnections = run.events(named: "disconnected", address: dexcom).count
            #expect(disconnections >= Self.dropSteps.count, "\(disconnections) disconnections")
            #expect(run.events(named: "connected", address: dexcom).count > Self.dropSteps.count)
            // After the last drop the handshake completed: authenticated and glucose read.
            let lastDrop = try #require(run.rigRecords.lastIndex { $0.string("event") == "link-dropped-at" })
            let after = run.rigRecords[(lastDrop + 1)...]
            #expect(after.contains { $0.string("event") == "authenticated" }, "\(Interop.DexcomInteropTests.rigLog(run))")
            #expect(after.contains { $0.string("sent") == "glucose" }, "\(Interop.DexcomInteropTests.rigLog(run))")
            // Every reading sent and not cut off arrived once (the half-sent backfill and the
            // glucose answer that never went out are not in the rig's sent log).
            run.expectDexcomOneForOne(minimum: 1)
            #expect(!run.alarmsRaised("urgent-low").isEmpty, "no urgent-low alarm\n\(run.diagnostics)")
        }

        @Test func aHundredGarbageAdvertisersDoNotHideTheThermometerOrTheTransmitters() throws {
            let rig = try HostileRig.launch("garbage-advertisers", [
                "--with-dexcom", "--dexcom-glucose-mgdl", "50", "--attack-seconds", "6", "--attack-delay", "0.5",
            ])
            defer { rig.stop() }
            let state = try StateDirectory()
            let config = try state.writeConfig(HostileRig.config(hostile: false, dexcom: true, thermometer: true))
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 10, waitForClientClose: true) { run in
                run.legitimateDevicesServed(heartRate: 25) && !run.hostileRecords("garbage-end").isEmpty
                    && run.events(named: "reading", address: HostileRig.thermometerAddress)
                        .filter { $0.string("kind") == "temperature" }.count >= 6
                    && !run.logLines(containing: "invalid Data_Length: 44").isEmpty
            }
            try run.expectCleanExit()
            run.expectHeartRateOneForOne(minimum: 25)
            run.expectDexcomOneForOne(minimum: 1)
            #expect(!run.alarmsRaised("urgent-low").isEmpty, "no urgent-low alarm\n\(run.diagnostics)")

            let end = try #require(run.hostileRecords("garbage-end").first, "no garbage sent\n\(run.rigRecords.suffix(5))")
            #expect((end.int("reports") ?? 0) >= 500, "\(end)")
            #expect(end.int("advertisers") == 100)
            // The thermometer was still heard: its temperatures, as sent, in order (each
            // BTHome packet once; the last one may have been sent after vigil stopped). The
            // first was sent before vigil started, so the rig's whole log counts.
            let sent = try rig.records().filter { $0.string("sent") == "bthome" }.compactMap { $0.double("temperature") }
            let heard = run.events(named: "reading", address: HostileRig.thermometerAddress)
                .filter { $0.string("kind") == "temperature" }.compactMap { $0.double("celsius") }
            #expect(heard.count >= 5, "\(heard)")
            #expect(Array(sent.prefix(heard.count)) == heard, "sent \(sent), heard \(heard)")
            #expect((0...1).contains(sent.count - heard.count))
            // No garbage advertiser (C7:BA:00:AD:AD:nn) became a device, and the look-alikes
            // named like the configured devices were not connected to.
            #expect(!run.events.contains { $0.string("address")?.hasPrefix("C7:BA:00:AD:AD") == true },
                    "\(run.events.filter { $0.string("address")?.hasPrefix("C7:BA") == true }.prefix(3))")
            // The report longer than a legacy report may be (31 bytes) is refused with the reason.
            #expect(!run.logLines(containing: "invalid Data_Length: 44").isEmpty, "\(run.diagnostics)")
        }
    }
}
