import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "dexcom-g7"` device against `Tests/Rigs/dexcom_g7.py`, a
    /// simulated G7 whose crypto is its own (plain-Python EC J-PAKE, `cryptography` for AES,
    /// X.509 and ECDSA): it runs the sensor's side of the J-PAKE, checks the certificate chain
    /// against a test root it made for this run (and wrote, with the leaf's key, as the
    /// credentials file Vigil reads), checks the signature, bonds, and logs every glucose and
    /// backfill record it sends. Expected values come from that log, never from constants here.
    @Suite(bumbleRequired) struct DexcomG7InteropTests {
        /// 60 sensor seconds per real second: a reading every 5 s, so two sessions 10 s apart
        /// straddle a gap of about two missed readings.
        static let speed = "60"
        static let readingInterval = 300

        /// Launches the rig with its credentials written into `state`, and the config for it.
        static func launch(_ state: StateDirectory, code: String = "1234", rigArguments: [String] = [],
                           config extra: String = "") throws -> (Rig, URL) {
            let credentials = state.url.appendingPathComponent("dexcom-g7.pem").path
            let rig = try Rig.launch("dexcom_g7.py", arguments: [
                "--code", "1234", "--speed", speed, "--credentials-out", credentials,
            ] + rigArguments)
            let config = try state.writeConfig("""
                [[device]]
                type = "dexcom-g7"
                label = "g7"
                pairing-code = "\(code)"
                credentials = "\(credentials)"
                reading-interval = "5s"
                \(extra)
                """)
            return (rig, config)
        }

        @Test func pairsBondsReadsGlucoseAndBackfillsTheGapWithoutDuplicates() throws {
            let state = try StateDirectory()
            let (rig, config) = try Self.launch(state, rigArguments: ["--readvertise-after", "10", "--sensor-age", "1h"])
            defer { rig.stop() }
            // Ends once two sessions were authenticated and every reading the rig sent is in.
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 25, waitForClientClose: true) { run in
                run.rigRecords.filter { $0.string("event") == "challenge-ok" }.count >= 2
                    && run.rigRecords.filter { $0.string("sent") == "glucose" }.count >= 2
                    && run.glucoseValues().count >= Self.expectedReadings(run.rigRecords).count
            }
            try run.expectCleanExit()
            let log = Self.rigLog(run)

            // Pairing, once: the J-PAKE (whose key the AES challenge proved), the chain the rig
            // checked against its root, the signature, the bond.
            func rigEvents(_ name: String) -> [JSONObject] { run.rigRecords.filter { $0.string("event") == name } }
            #expect(rigEvents("jpake-done").count == 1, "\(log)")
            #expect(rigEvents("jpake-packet").filter { $0.bool("proofValid") == true }.count == 3,
                    "the rig did not verify all three of vigil's J-PAKE proofs\n\(log)")
            #expect(rigEvents("certificates-accepted").count == 1, "\(log)")
            #expect(rigEvents("signature-ok").count == 1, "\(log)")
            #expect(rigEvents("paired").count == 1, "\(log)")
            #expect(rigEvents("certificates-rejected").isEmpty && rigEvents("signature-rejected").isEmpty, "\(log)")
            #expect(run.events(named: "paired").count == 1, "\(run.diagnostics)")
            // The second session proves the stored key and re-encrypts with the bond.
            let challenges = rigEvents("challenge-ok")
            #expect(challenges.count >= 2 && challenges.dropFirst().allSatisfy { $0.bool("bonded") == true }, "\(challenges)\n\(log)")
            #expect(rigEvents("challenge-mismatch").isEmpty, "\(log)")
            #expect(run.events(named: "connected").count >= 2, "want two sessions\n\(run.diagnostics)")

            // Glucose: every usable reading the rig sent (live, then backfill), once per sensor
            // time, value and arrow as sent.
            let expected = Self.expectedReadings(run.rigRecords)
            let readings = run.glucoseValues()
            #expect(readings.count == expected.count,
                    "vigil reported \(readings.count) glucose readings, the rig sent \(expected.count) distinct\n\(readings)\n\(expected)\n\(log)\n\(run.diagnostics)")
            for (index, (reading, record)) in zip(readings, expected).enumerated() {
                let context = Comment(rawValue: "reading \(index): \(reading) vs sent \(record)")
                #expect(reading.address == run.address, context)
                #expect(reading.mgdl == Double(record.mgdl), context)
                #expect(reading.trend == DexcomInteropTests.nightscoutDirection(trendTenths: record.trend), context)
                #expect(reading.sensorTime == record.sensorTime, context)
            }
            let times = readings.compactMap(\.time)
            #expect(times.count == readings.count && Set(times).count == times.count, "times: \(times)")
            #expect(run.readingLinesWithRepeatedKeys().isEmpty, "\(run.readingLinesWithRepeatedKeys())")

            // The gap between the sessions' live readings was backfilled.
            let live = run.rigRecords.filter { $0.string("sent") == "glucose" }.compactMap { $0.int("sensorTime") }
            try #require(live.count >= 2, "want a live reading per session: \(live)\n\(log)")
            let missed = Set(stride(from: live[0] + Self.readingInterval, to: live[1], by: Self.readingInterval))
            #expect(!missed.isEmpty, "no gap between the sessions' live readings \(live)")
            #expect(missed.isSubset(of: Set(expected.map(\.sensorTime))), "gap \(missed.sorted()) not backfilled\n\(log)")
            // The serial names the readings (asked once), and the session length once.
            #expect(run.rigRecords.filter { $0.string("sent") == "transmitter-version" }.count == 1, "\(log)")
            #expect(run.rigRecords.filter { $0.string("sent") == "extended-version" }.count == 1, "\(log)")

            // The history holds each reading once, keyed by the sensor's serial and sensor time.
            let export = try VigilProcess().run(["export", "--state-dir", state.url.path, "--format", "ndjson", "--kind", "glucose"])
            #expect(export.exitCode == 0, "\(export.summary)")
            let rows = try NDJSON.parse(export.stdoutText)
            let stored = rows.compactMap { $0.int("sensor_time") }
            #expect(stored.count == rows.count && Set(stored).count == stored.count, "a reading stored twice or unstamped: \(stored.sorted())")
            #expect(Set(stored) == Set(expected.map(\.sensorTime)), "stored \(stored.sorted()) vs sent \(expected.map(\.sensorTime).sorted())")
            #expect(Set(rows.compactMap { $0.string("sensor_run") }).count == 1 && rows.allSatisfy { $0.string("sensor_run")?.hasPrefix("G7-") == true },
                    "\(rows.prefix(3))")
            let sentValues = Dictionary(expected.map { ($0.sensorTime, Double($0.mgdl)) }, uniquingKeysWith: { first, _ in first })
            #expect(rows.allSatisfy { row in row.int("sensor_time").map { sentValues[$0] == row.double("value") } ?? false })
        }

        @Test func aWrongPairingCodeIsReportedAndTheSensorIsNeverAnswered() throws {
            let state = try StateDirectory()
            let (rig, config) = try Self.launch(state, code: "4321")
            defer { rig.stop() }
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 10, waitForClientClose: true) { run in
                run.events(named: "pairing-failed").contains { $0.string("reason")?.contains("pairing code rejected") == true }
            }
            try run.expectCleanExit()
            let log = Self.rigLog(run)
            #expect(run.rigRecords.contains { $0.string("event") == "jpake-done" }, "the exchange never finished\n\(log)")
            #expect(run.events(named: "pairing-failed").contains { $0.string("reason")?.contains("pairing code rejected") == true },
                    "\(run.diagnostics)")
            // Vigil saw the mismatch in the sensor's answer and never answered it: no refusal
            // counted against the sensor, no certificates, no bond, no glucose.
            #expect(!run.rigRecords.contains { $0.string("event") == "challenge-mismatch" }, "\(log)")
            #expect(!run.rigRecords.contains { $0.string("event") == "challenge-ok" }, "\(log)")
            #expect(!run.rigRecords.contains { $0.string("sent") == "glucose" }, "\(log)")
            #expect(run.glucoseValues().isEmpty)
        }

        @Test func anUrgentLowFromTheSensorSounds() throws {
            let state = try StateDirectory()
            let (rig, config) = try Self.launch(state, rigArguments: ["--glucose-mgdl", "50"])
            defer { rig.stop() }
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 12, waitForClientClose: true) { run in
                !run.alarmsRaised("urgent-low").isEmpty
            }
            try run.expectCleanExit()
            #expect(run.glucoseValues().last?.mgdl == 50, "\(run.glucoseValues())\n\(Self.rigLog(run))")
            #expect(!run.alarmsRaised("urgent-low").isEmpty, "no urgent-low alarm\n\(run.diagnostics)")
        }

        @Test func anExpiredSensorIsReportedAsEndedAndGivesNoGlucoseAfterItsEnd() throws {
            let state = try StateDirectory()
            let (rig, config) = try Self.launch(state, rigArguments: ["--sensor-age", "10d13h"])
            defer { rig.stop() }
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 12, waitForClientClose: true) { run in
                !run.alarmsRaised("sensor-ended:g7").isEmpty
            }
            try run.expectCleanExit()
            let log = Self.rigLog(run)
            #expect(run.rigRecords.contains { $0.string("sent") == "glucose" && $0.int("state") == 24 }, "\(log)")
            #expect(!run.alarmsRaised("sensor-ended:g7").isEmpty, "no sensor-ended alarm\n\(run.diagnostics)")
            #expect(run.events(named: "info").contains { $0.string("sensorState") == "expired" }, "\(run.diagnostics)")
            // The backfill still brings the last hours before the end (10 days 12 hours), and
            // nothing after it.
            let end = 907_200
            #expect(run.glucoseValues().allSatisfy { ($0.sensorTime ?? .max) <= end }, "\(run.glucoseValues())")
        }

        @Test func aWarmingUpSensorRaisesWarmUpAndGivesNoGlucose() throws {
            let state = try StateDirectory()
            let (rig, config) = try Self.launch(state, rigArguments: ["--sensor-age", "10m"])
            defer { rig.stop() }
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 12, waitForClientClose: true) { run in
                !run.alarmsRaised("sensor-warmup:g7").isEmpty
            }
            try run.expectCleanExit()
            #expect(!run.alarmsRaised("sensor-warmup:g7").isEmpty, "no warm-up alarm\n\(run.diagnostics)")
            #expect(run.glucoseValues().isEmpty, "\(run.glucoseValues())\n\(Self.rigLog(run))")
        }

        @Test func aMissingOrUnusableCredentialsFileStopsTheAppliance() throws {
            let state = try StateDirectory()
            let missing = state.url.appendingPathComponent("nowhere.pem").path
            let garbage = state.url.appendingPathComponent("garbage.pem")
            try "not a PEM file\n".write(to: garbage, atomically: true, encoding: .utf8)
            for (path, words) in [(missing, "No such file"), (garbage.path, "credentials")] {
                let config = try state.writeConfig("""
                    [[device]]
                    type = "dexcom-g7"
                    pairing-code = "1234"
                    credentials = "\(path)"
                    """)
                for command in [["config", "check", config.path], ["run", "--config", config.path, "--state-dir", state.url.path, "--seconds", "5"]] {
                    let result = try VigilProcess().run(command)
                    #expect(result.exitCode == 78, "\(command): \(result.summary)")
                    #expect(result.stderrText.contains("option credentials=\(path)") && result.stderrText.contains(words),
                            "\(command): \(result.summary)")
                }
            }
        }

        // MARK: - The rig's log

        struct SentReading: Equatable {
            var sensorTime: Int
            var mgdl: Int
            var trend: Int
        }

        /// What the rig sent with glucose (state OK), in order, each sensor time once.
        static func expectedReadings(_ records: [JSONObject]) -> [SentReading] {
            var seen = Set<Int>()
            var out: [SentReading] = []
            for line in records {
                var sent: [SentReading] = []
                if line.string("sent") == "glucose", line.int("state") == 6,
                   let t = line.int("sensorTime"), let mgdl = line.int("mgdl"), let trend = line.int("trend") {
                    sent = [SentReading(sensorTime: t, mgdl: mgdl, trend: trend)]
                } else if line.string("sent") == "backfill", let records = line["records"] as? [[Any]] {
                    // [sensorTime, mgdl, state, trend]; mgdl and trend are null without glucose.
                    sent = records.compactMap { record in
                        let numbers = record.map { $0 as? NSNumber }
                        guard numbers.count == 4, let t = numbers[0], let mgdl = numbers[1], let state = numbers[2], let trend = numbers[3],
                              state.intValue == 6 else { return nil }
                        return SentReading(sensorTime: t.intValue, mgdl: mgdl.intValue, trend: trend.intValue)
                    }
                }
                for reading in sent where seen.insert(reading.sensorTime).inserted { out.append(reading) }
            }
            return out
        }

        static func rigLog(_ run: VigilRun) -> String { DexcomInteropTests.rigLog(run) }
    }
}
