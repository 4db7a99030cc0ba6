import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Interop {
    /// The Dexcom's sessions over time against `Tests/Rigs/dexcom_g6.py`: a transmitter that
    /// stays connectable, restarts of vigil, and a transmitter that leaves a request unanswered.
    /// What was sent comes from the rig's log, what was kept from `vigil export` and `vigil
    /// report` on the state directory.
    @Suite(bumbleRequired) struct DexcomSessionsInteropTests {
        /// A G6 in real time (a reading every 5 minutes) that re-advertises a second after each
        /// Disconnect. Vigil once reconnected about every second and stored the current reading
        /// each time (30 rows in 35 s), and a restart stored the backfill again. Now: one session
        /// in the half minute after the first, each sensor reading stored once over three runs,
        /// and `vigil report` counts the distinct readings.
        @Test func aConnectableG6ReadAndRestartedTwiceHoldsEachReadingOnce() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: [
                "--speed", "1", "--readvertise-after", "1", "--session-age-minutes", "60",
            ])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig("[[device]]\ntype = \"dexcom\"\nlabel = \"g6\"\ntransmitter-id = \"\(transmitterID)\"\n")
            let arguments = ["run"] + VigilProcess.hci(rig) + ["--config", config.path, "--state-dir", state.url.path, "--events-json"]

            /// One run of vigil: until its session ends (the Disconnect written), then `stay` more.
            func run(staying stay: Duration, _ what: String) throws -> (sessions: Int, events: [JSONObject]) {
                let start = rig.lineCount
                let vigil = try BackgroundVigil(arguments)
                let ended = try rig.waitFor(since: start, timeout: .seconds(60)) { $0.string("event") == "disconnect-requested" }
                #expect(ended != nil, "\(what): no session ended\n\(vigil.stderrText.suffix(3000))")
                if stay > .zero {
                    // The transmitter is connectable again a second later: no second session may
                    // come in this window (its next reading is minutes away).
                    let again = try rig.waitFor(since: rig.lineCount, timeout: stay) { $0.string("event") == "authenticated" }
                    let log = try rig.records(since: start).suffix(20)
                    #expect(again == nil, "\(what): vigil came back before the next reading was due\n\(log)")
                }
                vigil.send(SIGTERM)
                let exit = vigil.waitForExit()
                #expect(exit.status == 0 && !exit.timedOut, "\(what): \(exit)\n\(vigil.stderrText.suffix(2000))")
                let sessions = try rig.records(since: start).filter { $0.string("event") == "authenticated" }.count
                return (sessions, vigil.events)
            }
            let first = try run(staying: .seconds(30), "first run")
            #expect(first.sessions == 1, "sessions in the first run: \(first.sessions)")
            let slots = try rig.records().filter { $0.string("event") == "auth-request" }.compactMap { $0.string("slot") }
            #expect(!slots.isEmpty && slots.allSatisfy { $0 == "receiver" }, "slots vigil asked for: \(slots)")
            _ = try run(staying: .zero, "second run")
            _ = try run(staying: .zero, "third run")

            // What the rig sent over the three runs, by dex time: live readings and backfill.
            var sent: [Int: Int] = [:]
            for record in try rig.records() {
                if record.string("sent") == "glucose", let t = record.int("dexTime"), let mgdl = record.int("mgdl") { sent[t] = mgdl }
                if record.string("sent") == "backfill" {
                    for reading in Interop.DexcomInteropTests.backfillRecords(record) { sent[reading.dexTime] = reading.mgdl }
                }
            }
            try #require(sent.count >= 12, "the rig sent \(sent.count) readings")

            // The history: each of them exactly once, keyed by the transmitter's dex time.
            let export = try VigilProcess().run(["export", "--state-dir", state.url.path, "--format", "ndjson", "--kind", "glucose"])
            #expect(export.exitCode == 0, "\(export.summary)")
            let rows = try NDJSON.parse(export.stdoutText)
            let stored = rows.compactMap { $0.int("sensor_time") }
            #expect(stored.count == rows.count, "rows without a sensor time: \(rows.prefix(3))")
            #expect(stored.count == Set(stored).count, "a reading stored twice: \(stored.sorted())")
            #expect(Set(stored) == Set(sent.keys), "stored \(stored.sorted()) vs sent \(sent.keys.sorted())")
            #expect(rows.allSatisfy { $0.string("sensor_run") == transmitterID })
            for row in rows {
                guard let t = row.int("sensor_time") else { continue }
                #expect(row.double("value") == sent[t].map(Double.init), "dex time \(t)")
            }

            // The report's statistics are those of the distinct readings.
            let report = state.url.appendingPathComponent("report.svg").path
            let made = try VigilProcess().run(["report", "--state-dir", state.url.path, "--days", "1", "-o", report])
            #expect(made.exitCode == 0, "\(made.summary)")
            let svg = try String(contentsOfFile: report, encoding: .utf8)
            let values = sent.values.map(Double.init)
            let mean = values.reduce(0, +) / Double(values.count)
            #expect(Self.metric("Sensor readings", in: svg) == "\(sent.count)")
            #expect(Self.metric("Mean glucose", in: svg) == "\(Int(mean.rounded())) mg/dL")
            let inRange = Double(values.filter { (70...180).contains($0) }.count) / Double(values.count) * 100
            #expect(Self.metric("In range, 70–180 mg/dL", in: svg) == String(format: "%.1f %%", inRange))
        }

        /// A transmitter that never answers CalibrationDataTx (0x32): the glucose and the
        /// backfill are delivered, the silence is reported, and the session still ends with
        /// the Disconnect (it once waited 10 s and dropped the link, losing the backfill).
        @Test func anUnansweredOptionalRequestCostsOnlyItsAnswer() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: [
                "--ignore", "32", "--speed", Interop.DexcomInteropTests.speed, "--readvertise-after", "30", "--session-age-minutes", "30",
            ])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig(Interop.DexcomInteropTests.config(transmitterID: transmitterID))
            let start = rig.lineCount
            let vigil = try BackgroundVigil(["run"] + VigilProcess.hci(rig) + ["--config", config.path, "--state-dir", state.url.path, "--events-json"])
            let ended = try rig.waitFor(since: start, timeout: .seconds(40)) { $0.string("event") == "disconnect-requested" }
            vigil.send(SIGTERM)
            _ = vigil.waitForExit()
            let log = try rig.records(since: start)
            #expect(ended != nil, "the session never ended\n\(log.suffix(20))")
            #expect(log.contains { $0.string("event") == "ignored-control" && $0.string("hex")?.hasPrefix("32") == true })
            #expect(log.contains { $0.string("sent") == "backfill" }, "no backfill\n\(log.suffix(20))")
            #expect(log.contains { $0.string("sent") == "battery" }, "the requests after the silent one were not asked")
            let failed = vigil.events.filter { $0.string("event") == "operation-failed" }
            #expect(failed.contains { $0.string("reason")?.contains("CalibrationDataTx (0x32)") == true }, "\(failed)")
            let sent = Set(log.filter { $0.string("sent") == "glucose" }.compactMap { $0.int("dexTime") })
                .union(log.filter { $0.string("sent") == "backfill" }.flatMap { Interop.DexcomInteropTests.backfillRecords($0) }.map(\.dexTime))
            let delivered = vigil.events.filter { $0.string("event") == "reading" && $0.string("kind") == "glucose" }
            #expect(delivered.count == sent.count, "delivered \(delivered.count) of \(sent.count)")
        }

        /// The bold value next to a metric's name in the report's SVG.
        static func metric(_ name: String, in svg: String) -> String? {
            guard let label = svg.range(of: ">\(name)</text>") else { return nil }
            let rest = svg[label.upperBound...]
            guard let open = rest.range(of: "font-weight=\"bold\">"), let close = rest[open.upperBound...].range(of: "</text>") else { return nil }
            return String(rest[open.upperBound..<close.lowerBound])
        }
    }
}
