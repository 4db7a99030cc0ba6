import Foundation
import Testing

extension Interop {
    /// SLOW (30-40 s each): hostile peers that fall silent mid-transaction, so only the
    /// spec's 30 s timers end the wait — the SMP timeout (Core v5.4 Vol 3 Part H §3.4) and the
    /// ATT transaction timeout (Vol 3 Part F §3.3.3). Skip with `--skip HostileSlowInteropTests`.
    /// Same rig and assertions as `HostilePeersInteropTests`: the legitimate HRM one for one and
    /// the Dexcom's urgent low throughout.
    @Suite(bumbleRequired, .tags(.slow)) struct HostileSlowInteropTests {
        static let seconds = 38

        @Test func aPeerThatNeverAnswersPairingTimesOutIsReportedAndRetried() throws {
            let (rig, run) = try HostilePeersInteropTests.run(
                "pairing-failures", ["--pairing-faults", "silent"], seconds: Self.seconds, hostilePair: true
            ) { run in
                run.legitimateDevicesServed(heartRate: 150)
                    && !run.events(named: "pairing-failed", address: HostileRig.hostileAddress).isEmpty
                    && run.hostileRecords("smp").filter { $0.string("step") == "pairing-request" }.count >= 2
            }
            defer { rig.stop() }
            try HostilePeersInteropTests.expectLegitimateDevicesServed(run, minimumHeartRate: 150)
            let failures = run.events(named: "pairing-failed", address: HostileRig.hostileAddress)
            try #require(!failures.isEmpty, "no pairing-failed\n\(run.diagnostics)")
            #expect(failures[0].string("reason")?.contains("SMP timeout") == true, "\(failures)")
            // After the timeout the link is given up and the peer tried again.
            #expect(run.events(named: "connecting", address: HostileRig.hostileAddress).count >= 2,
                    "\(run.events(named: "connecting", address: HostileRig.hostileAddress))")
            #expect(run.hostileRecords("smp").filter { $0.string("step") == "pairing-request" }.count >= 2)
        }

        @Test func aReadResponseWhereAWriteResponseIsDueEndsInTheATTTimeoutAndAReconnection() throws {
            // No unsolicited PDUs this time (--attack-seconds 0): one of them is a Write
            // Response, which would pass for the answer to the outstanding Write Request.
            let (rig, run) = try HostilePeersInteropTests.run(
                "unsolicited-att", ["--attack-seconds", "0"], seconds: Self.seconds
            ) { run in
                run.legitimateDevicesServed(heartRate: 150)
                    && run.events(named: "connecting", address: HostileRig.hostileAddress).count >= 2
                    && (!run.events(named: "no-data", address: HostileRig.hostileAddress).isEmpty
                        || !run.logLines(containing: "ATT request 0x12 got no response in 30 s").isEmpty)
            }
            defer { rig.stop() }
            try HostilePeersInteropTests.expectLegitimateDevicesServed(run, minimumHeartRate: 150)
            #expect(!run.logLines(containing: "ignored out-of-order ATT response 0xb while waiting for the answer to 0x12").isEmpty)
            // The Write Request never got its answer: 30 s later the bearer is declared dead
            // ("got no response in 30 s"). The driver's own 30 s no-data watchdog (no
            // measurement since the connection) fires at about the same moment and may drop the
            // link first; either way the peer is reported and the link made again.
            let noData = run.events(named: "no-data", address: HostileRig.hostileAddress)
            let timedOut = run.logLines(containing: "ATT request 0x12 got no response in 30 s")
            #expect(!noData.isEmpty || !timedOut.isEmpty, "\(run.diagnostics)")
            #expect(run.events(named: "connecting", address: HostileRig.hostileAddress).count >= 2)
        }
    }
}

extension Tag {
    /// Tests that wait out a spec timer of 30 s or more.
    @Tag static var slow: Self
}
