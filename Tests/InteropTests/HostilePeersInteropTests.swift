import Foundation
import Testing

extension Interop {
    /// Hostile Bluetooth LE peers: `vigil run` against ONE Bumble controller that
    /// carries the legitimate heart-rate monitor, the legitimate Dexcom G6 serving an urgent low
    /// (50 mg/dL), and a hostile peer (`Tests/Rigs/hostile_peers.py --scenario ...`). Every
    /// test asserts with the rig's logs: the legitimate readings arrive one for one during and
    /// after the attack, the urgent-low alarm sounds, vigil exits cleanly when stopped (it was
    /// running and serving to the end), and the hostile peer is reported in words. A run ends
    /// once the attack is over and what its test checks has arrived (`--seconds`, 10-16 s, is
    /// the cap), except the pairing failures', whose whole span shows the backoff.
    @Suite(bumbleRequired) struct HostilePeersInteropTests {
        /// The Dexcom's glucose in every hostile scenario: below the 55 mg/dL urgent low.
        static let urgentLowGlucose = "50"

        /// `until`: the run ends once this holds (the attack over and what the test checks in),
        /// `seconds` is the cap; without it the run lasts `seconds`.
        static func run(_ scenario: String, _ arguments: [String] = [], seconds: Int,
                        hostilePair: Bool = false, until stop: ((VigilRun) -> Bool)? = nil) throws -> (Rig, VigilRun) {
            let rig = try HostileRig.launch(scenario, ["--with-dexcom", "--dexcom-glucose-mgdl", urgentLowGlucose] + arguments)
            let state = try StateDirectory()
            let config = try state.writeConfig(HostileRig.config(hostilePair: hostilePair, dexcom: true))
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: seconds, waitForClientClose: true,
                                   until: stop)
            return (rig, run)
        }

        /// What every scenario shares: a clean exit, the legitimate HRM one for one, the
        /// Dexcom's glucose one for one and its urgent-low alarm.
        static func expectLegitimateDevicesServed(_ run: VigilRun, minimumHeartRate: Int = 25,
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
            try run.expectCleanExit(sourceLocation: sourceLocation)
            run.expectHeartRateOneForOne(minimum: minimumHeartRate, sourceLocation: sourceLocation)
            run.expectDexcomOneForOne(minimum: 1, sourceLocation: sourceLocation)
            #expect(!run.alarmsRaised("urgent-low").isEmpty, "no urgent-low alarm\n\(run.diagnostics)",
                    sourceLocation: sourceLocation)
            // Nothing the hostile peer sent is attributed to another device.
            #expect(run.events.filter { $0.string("address") == HostileRig.hostileAddress }
                .allSatisfy { $0.string("device") == "hostile" }, sourceLocation: sourceLocation)
        }

        static func counts(_ line: JSONObject?) -> [String: Int] {
            (line?["counts"] as? [String: NSNumber])?.mapValues(\.intValue) ?? [:]
        }

        @Test func aNotificationFloodDoesNotStarveTheLegitimateDevices() throws {
            let (rig, run) = try Self.run("flood", ["--attack-seconds", "5"], seconds: 12) { run in
                guard let end = run.hostileRecords("flood-end").first else { return false }
                // Caught up: a slower board (or the arm64 build under qemu-user) decodes the
                // flood seconds after it was sent, and the strap's values queued behind it.
                return run.legitimateDevicesServed(heartRate: 25) && run.heartRateSent(betweenHostile: "flood-end", and: nil) >= 5
                    && run.events(named: "reading", address: HostileRig.hostileAddress).count >= Self.counts(end)["measurements"] ?? 0
                    && run.heartRateReadingsBehind() <= 1
                    && !run.events(named: "ignored-values", address: HostileRig.hostileAddress).isEmpty
            }
            defer { rig.stop() }
            try Self.expectLegitimateDevicesServed(run)
            let end = try #require(run.hostileRecords("flood-end").first, "the flood never ran\n\(run.diagnostics)")
            let flooded = Self.counts(end)["measurements"] ?? 0
            #expect(flooded >= 1_000, "a flood of only \(flooded)")
            // Legitimate values went out during the flood and after it, and all arrived (above).
            #expect(run.heartRateSent(betweenHostile: "flood-start", and: "flood-end") >= 10)
            #expect(run.heartRateSent(betweenHostile: "flood-end", and: nil) >= 5)
            // The flood itself is the hostile device's, one reading per measurement: none lost,
            // none invented, none credited to the legitimate strap.
            let hostileReadings = run.events(named: "reading", address: HostileRig.hostileAddress)
                .filter { $0.string("kind") == "heart-rate" }
            #expect(hostileReadings.count == flooded, "\(hostileReadings.count) of \(flooded) flooded readings")
            // Its notifications and indications on handles 0x0F00 and 0x0F01, which are in no
            // database, are dropped and said: once, since the run is shorter than a minute.
            let ignored = run.events(named: "ignored-values", address: HostileRig.hostileAddress)
            #expect(ignored.count == 1, "\(ignored)\n\(run.diagnostics)")
            #expect(ignored.allSatisfy { [0x0F00, 0x0F01].contains($0.int("attribute") ?? 0) }, "\(ignored)")
        }

        /// The responses the rig sends unasked: Read, Write, Exchange MTU, Read Blob, Find
        /// Information and Read By Type.
        static let unsolicitedOpcodes = ["0xb", "0x13", "0x3", "0x11", "0x5", "0xd"]

        @Test func unsolicitedATTResponsesAreIgnoredAndLogged() throws {
            let (rig, run) = try Self.run("unsolicited-att", ["--attack-seconds", "4"], seconds: 10) { run in
                guard let end = run.hostileRecords("unsolicited-end").first else { return false }
                return run.legitimateDevicesServed(heartRate: 25) && !run.hostileRecords("read-response-for-write").isEmpty
                    && Self.unsolicitedOpcodes.allSatisfy { run.logLines(containing: "ignored unsolicited ATT response \($0):").count >= 10 }
                    && run.logLines(containing: "dropped malformed ATT PDU").count >= Self.counts(end)["empty-pdu"].map { $0 / 2 } ?? 1
                    && !run.logLines(containing: "ignored out-of-order ATT response 0xb while waiting for the answer to 0x12").isEmpty
            }
            defer { rig.stop() }
            try Self.expectLegitimateDevicesServed(run)
            let counts = Self.counts(run.hostileRecords("unsolicited-end").first)
            let readResponses = try #require(counts["read-response"], "no attack\n\(run.diagnostics)")
            #expect(readResponses >= 20)
            // Each response to a request never sent is named in the log.
            for opcode in Self.unsolicitedOpcodes {
                #expect(run.logLines(containing: "ignored unsolicited ATT response \(opcode):").count >= 10,
                        "response \(opcode) not reported\n\(run.diagnostics)")
            }
            #expect(run.logLines(containing: "dropped malformed ATT PDU").count >= counts["empty-pdu"].map { $0 / 2 } ?? 1)
            // The Read Response that came where the CCCD's Write Response was due.
            #expect(run.hostileRecords("read-response-for-write").count >= 1)
            #expect(!run.logLines(containing: "ignored out-of-order ATT response 0xb while waiting for the answer to 0x12").isEmpty,
                    "\(run.diagnostics)")
        }

        @Test func l2capLengthLiesAreDroppedAndTheNextGoodFrameIsKept() throws {
            let (rig, run) = try Self.run("l2cap-lies", ["--attack-seconds", "4"], seconds: 10) { run in
                guard let end = run.hostileRecords("l2cap-lies-end").first, let rounds = Self.counts(end)["length-too-short"] else {
                    return false
                }
                return run.legitimateDevicesServed(heartRate: 25)
                    && run.events(named: "reading", address: HostileRig.hostileAddress).count >= 2 * rounds
                    && run.logLines(containing: "malformed LE signaling command: truncated at identifier").count >= rounds
            }
            defer { rig.stop() }
            try Self.expectLegitimateDevicesServed(run)
            let counts = Self.counts(run.hostileRecords("l2cap-lies-end").first)
            let rounds = try #require(counts["length-too-short"], "no attack\n\(run.hostileRecords())")
            #expect(rounds >= 20)
            // Each lie is reported with what was wrong (warnings, one per lie that reaches
            // the reassembler first).
            let reported: [(String, Int)] = [
                ("L2CAP length says 2 byte(s) but 5 arrived", rounds),
                ("L2CAP frame start while 40 byte(s) of the previous frame were still missing", rounds),
                ("L2CAP frame start while 25 byte(s) of the previous frame were still missing", rounds),
                ("L2CAP continuation fragment (3 byte(s)) with no frame started", rounds),
                ("L2CAP start fragment of 2 byte(s) is shorter than the basic header", rounds),
                ("L2CAP start fragment of 0 byte(s) is shorter than the basic header", rounds),
                ("L2CAP frame of 65535 byte(s) exceeds what Vigil accepts", rounds),
                ("malformed LE signaling command: LE signaling command length 8 but 4 byte(s) follow", rounds),
                ("malformed LE signaling command: LE signaling command length 2 but 8 byte(s) follow", rounds),
                ("malformed LE signaling command: truncated at identifier", rounds),
            ]
            for (text, count) in reported {
                #expect(run.logLines(containing: text).count == count, "\(text): \(run.logLines(containing: text).count) vs \(count)")
            }
            // Every whole frame that followed a broken one was delivered (80 bpm): the
            // reassembler once dropped it with the broken frame.
            let good = counts["complete-after-pending"] ?? 0
            let hostileReadings = run.events(named: "reading", address: HostileRig.hostileAddress)
            #expect(good == 2 * rounds)
            #expect(hostileReadings.count == good, "\(hostileReadings.count) readings for \(good) whole frames")
            #expect(hostileReadings.allSatisfy { $0.int("bpm") == 80 })
        }

        @Test func valuesLongerThanTheMTUAndEmptyOnesAreRejected() throws {
            let (rig, run) = try Self.run("oversized", ["--attack-seconds", "4"], seconds: 10) { run in
                guard let end = run.hostileRecords("oversized-end").first else { return false }
                let counts = Self.counts(end)
                return run.legitimateDevicesServed(heartRate: 25)
                    && run.events(named: "reading", address: HostileRig.hostileAddress).count >= counts["value-20"] ?? 0
                    && run.events(named: "malformed-value", address: HostileRig.hostileAddress).count
                        >= (counts["value-0"] ?? 0) + (counts["indication-0"] ?? 0)
            }
            defer { rig.stop() }
            try Self.expectLegitimateDevicesServed(run)
            let counts = Self.counts(run.hostileRecords("oversized-end").first)
            let legal = try #require(counts["value-20"], "no attack\n\(run.hostileRecords())")
            #expect(legal >= 20)
            // A 20-byte value fills ATT_MTU 23 exactly: accepted, 77 bpm and 9 RR intervals.
            let hostileReadings = run.events(named: "reading", address: HostileRig.hostileAddress)
            #expect(hostileReadings.count == legal)
            #expect(hostileReadings.allSatisfy { $0.int("bpm") == 77 && $0.doubles("rrIntervals")?.count == 9 })
            // Longer PDUs are dropped, each with its length.
            for (size, pdu) in [(21, 24), (22, 25), (64, 67), (200, 203)] {
                #expect(run.logLines(containing: "ATT PDU 0x1b of \(pdu) bytes exceeds ATT_MTU 23").count == counts["value-\(size)"],
                        "value of \(size) bytes")
            }
            // Empty notifications and indications: malformed values of 2A37, reported.
            let malformed = run.events(named: "malformed-value", address: HostileRig.hostileAddress)
            #expect(malformed.count == (counts["value-0"] ?? 0) + (counts["indication-0"] ?? 0))
            #expect(malformed.allSatisfy { $0.string("characteristic") == "2A37" })
        }

        /// Runs its whole 16 s: at most five attempts in that span is what shows the backoff.
        @Test func pairingFailuresAreReportedRetriedWithBackoffAndTheOthersServed() throws {
            let (rig, run) = try Self.run("pairing-failures", [], seconds: 16, hostilePair: true)
            defer { rig.stop() }
            try Self.expectLegitimateDevicesServed(run)
            // Each misdeed in turn (reject the request, fail after the keys, a wrong confirm
            // value) is met by a pairing-failed event naming it.
            let failures = run.events(named: "pairing-failed", address: HostileRig.hostileAddress).compactMap { $0.string("reason") }
            try #require(failures.count >= 3, "pairing failures: \(failures)\n\(run.diagnostics)")
            #expect(failures[0].contains("pairing not supported"), "\(failures)")
            #expect(failures[1].contains("unspecified"), "\(failures)")
            #expect(failures[2].lowercased().contains("confirm"), "\(failures)")
            // The central found the wrong confirm value itself (Pairing Failed 0x04).
            #expect(run.hostileRecords("smp").contains { $0.string("step") == "central-failed" && $0.int("reason") == 0x04 },
                    "\(run.hostileRecords("smp"))")
            // Retried, but not hammered: backoff 1, 2, 4, 8 s allows at most five attempts.
            let attempts = run.events(named: "connecting", address: HostileRig.hostileAddress).count
            #expect((3...5).contains(attempts), "\(attempts) attempts")
            #expect(run.events(named: "reading", address: HostileRig.hostileAddress).isEmpty)
        }
    }
}
