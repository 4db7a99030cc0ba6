import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "glucose-meter"` device against `Tests/Rigs/glucose_meter.py`,
    /// a Glucose Service (0x1808) meter that demands a bond and serves its stored records over
    /// the Record Access Control Point. Every fingerstick vigil reports must equal, one for one
    /// and in order, a record the rig logged as `{"sent":"glucose-measurement",...}`.
    @Suite(bumbleRequired) struct GlucoseMeterInteropTests {
        static let records = "6"
        static let seconds = 8

        /// A run that reads records ends with its transfer: the meter answered both requests
        /// (the check and the transfer: an RACP response each), every record it sent is a
        /// reading, and the newest one is saved (`state-saved`); `seconds` is the cap. A run
        /// that must ask for nothing more runs its whole time: that nothing comes is what it
        /// proves.
        static func transferEnded(_ run: VigilRun) -> Bool {
            let requests = run.rigRecords.filter { $0.string("received") == "racp" }.count
            let responses = run.rigRecords.filter { $0.string("sent") == "racp" }.count
            guard requests >= 2, responses >= requests else { return false }
            let sent = sentMeasurements(run)
            guard let newest = sent.compactMap({ $0.int("seq") }).max() else { return true }
            return run.events(named: "reading").filter { $0.string("kind") == "meter-glucose" }.count >= sent.count
                && run.events(named: "state-saved").last?.string("last-sequence") == "\(newest)"
        }

        static func config(lastSequence: Int? = nil) -> String {
            var text = "[[device]]\ntype = \"glucose-meter\"\nlabel = \"meter\"\npair = true\n"
            if let lastSequence { text += "last-sequence = \(lastSequence)\n" }
            return text
        }

        @Test func firstRunGetsEveryRecordAndTheNextRunOnlyNewerOnes() throws {
            let rig = try Rig.launch("glucose_meter.py", arguments: ["--records", Self.records])
            defer { rig.stop() }
            let stored = try #require(try rig.info().objects("records"), "rig info has no records")
            let state = try StateDirectory()

            // First run: pairs (the meter refuses its CCCDs and RACP on a clear link), looks at the
            // meter's newest record (RACP op 1, operator 6) and asks for all records (operator 1).
            let first = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config()), seconds: Self.seconds,
                                     until: Self.transferEnded)
            try first.expectCleanExit()
            #expect(first.events(named: "paired").first?.bool("secureConnections") == true, "no SC pairing\n\(first.diagnostics)")
            #expect(Self.racpRequests(first) == [Self.lastRecord, "0101"], "want the check, then 'report all records'\n\(Self.racpLog(first))")
            let sentFirst = Self.sentMeasurements(first)
            #expect(sentFirst.count == stored.count, "the rig sent \(sentFirst.count) of \(stored.count) records\n\(Self.racpLog(first))")
            try Self.expectReadingsMatch(first, sent: sentFirst)
            // The newest sequence number taken is saved for the next start.
            let newest = try #require(sentFirst.compactMap { $0.int("seq") }.max())
            #expect(first.events(named: "state-saved").last?.string("last-sequence") == "\(newest)",
                    "\(first.events(named: "state-saved"))")

            // Second run, same state directory, no option: the meter's newest record is the one
            // saved, so nothing more is asked for.
            let second = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config()), seconds: Self.seconds)
            try second.expectCleanExit()
            #expect(second.events(named: "paired").isEmpty, "second run paired again\n\(second.diagnostics)")
            #expect(Self.racpRequests(second) == [Self.lastRecord], "\(Self.racpLog(second))")
            #expect(Self.sentMeasurements(second).isEmpty, "\(Self.racpLog(second))")
            #expect(second.events(named: "reading").isEmpty, "\(second.diagnostics)")
        }

        @Test func lastSequenceOptionAsksOnlyForNewerRecords() throws {
            let rig = try Rig.launch("glucose_meter.py", arguments: ["--records", Self.records])
            defer { rig.stop() }
            let stored = try #require(try rig.info().objects("records"), "rig info has no records")
            // The middle of the stored range, so some records are older and some newer.
            let sequences = stored.compactMap { $0.int("seq") }.sorted()
            try #require(sequences.count >= 2)
            let lastSequence = sequences[sequences.count / 2 - 1]
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config(lastSequence: lastSequence)),
                                   seconds: Self.seconds, until: Self.transferEnded)
            try run.expectCleanExit()
            #expect(Self.racpRequests(run) == [Self.lastRecord, Self.reportAtLeast(lastSequence + 1)], "\(Self.racpLog(run))")
            let sent = Self.sentMeasurements(run)
            let newer = stored.filter { ($0.int("seq") ?? .min) > lastSequence }
            #expect(!newer.isEmpty && newer.count < stored.count)
            #expect(sent.compactMap { $0.int("seq") } == newer.compactMap { $0.int("seq") },
                    "the rig sent \(sent.compactMap { $0.int("seq") }), newer than \(lastSequence) are \(newer.compactMap { $0.int("seq") })")
            try Self.expectReadingsMatch(run, sent: sent)
        }

        /// A meter whose sequence numbers restarted between two runs (the rig's
        /// `--reset-at-connection 2`: 3 new records numbered from 1, dated a day later). The
        /// second run sees the meter's newest record below the saved one, reads everything
        /// again, and the new #1–#3 are stored beside the old #1–#3, not taken for them.
        @Test func aMeterWhoseNumbersRestartedIsReadAgain() throws {
            let rig = try Rig.launch("glucose_meter.py", arguments: ["--records", Self.records, "--reset-at-connection", "2",
                                                                     "--records-after-reset", "3"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let first = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config()), seconds: Self.seconds,
                                     until: Self.transferEnded)
            try first.expectCleanExit()
            try Self.expectReadingsMatch(first, sent: Self.sentMeasurements(first))
            #expect(first.events(named: "state-saved").last?.string("last-sequence") == Self.records)

            let second = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config()), seconds: Self.seconds,
                                      until: Self.transferEnded)
            try second.expectCleanExit()
            #expect(second.rigRecords.contains { $0.string("event") == "reset" }, "the rig did not reset\n\(Self.racpLog(second))")
            #expect(Self.racpRequests(second) == [Self.lastRecord, "0101"], "\(Self.racpLog(second))")
            let sent = Self.sentMeasurements(second)
            #expect(sent.compactMap { $0.int("seq") } == [1, 2, 3], "\(Self.racpLog(second))")
            try Self.expectReadingsMatch(second, sent: sent)
            let saved = second.events(named: "state-saved").last
            #expect(saved?.string("last-sequence") == "3", "\(second.events(named: "state-saved"))")
            #expect(saved?.string("last-record") == sent.last?.string("recordTime"), "\(second.events(named: "state-saved"))")

            // The history holds both runs' records, each once, told apart by their stamps:
            // sensor_time is the sequence number, sensor_run the record's own date.
            let export = try VigilProcess().run(["export", "--state-dir", state.url.path, "--format", "ndjson", "--kind", "meter-glucose",
                                                 "--utc-offset", "Z"], timeout: .seconds(60))
            #expect(export.exitCode == 0, "\(export.summary)")
            let rows = try NDJSON.parse(export.stdoutText)
            let stamps = Set(rows.compactMap { row in row.int("sensor_time").map { "\(row.string("sensor_run") ?? "")#\($0)" } })
            #expect(rows.count == 6 + 3 && stamps.count == 9, "\(export.stdoutText)")
            let newRun = sent.compactMap { record in record.int("seq").map { "\(record.string("recordTime") ?? "")#\($0)" } }
            #expect(Set(newRun).isSubset(of: stamps), "\(newRun) not among \(stamps.sorted())")
        }

        // MARK: - Comparisons with the rig's log

        /// RACP op 1 "report stored records", operator 6 "last record": the check before each transfer.
        static let lastRecord = "0106"

        /// The records the rig sent for a transfer (not for the check, whose record is looked at only).
        static func sentMeasurements(_ run: VigilRun) -> [JSONObject] {
            run.rigRecords.filter { $0.string("sent") == "glucose-measurement" && $0.string("request") != lastRecord }
        }

        static func expectReadingsMatch(_ run: VigilRun, sent: [JSONObject], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let readings = run.events(named: "reading").filter { $0.string("kind") == "meter-glucose" }
            #expect(readings.count == sent.count, "rig sent \(sent.count) records, vigil reported \(readings.count)\n\(run.diagnostics)",
                    sourceLocation: sourceLocation)
            for (index, (reading, record)) in zip(readings, sent).enumerated() {
                let context = Comment(rawValue: "reading \(index): \(reading) vs sent \(record)")
                #expect(reading.string("address") == run.address, context, sourceLocation: sourceLocation)
                // The rig logs mg/dL rounded to 3 decimals (mol/L records convert with 18.0182).
                let got = reading.double("mgdl"), want = record.double("mgdl")
                #expect(got != nil && want != nil && abs(got! - want!) < 0.001, context, sourceLocation: sourceLocation)
                // A record the rig sent a Measurement Context for carries its meal and tester (the
                // rig's context: meal 1 preprandial, tester 1 self); the others carry none.
                let hasContext = run.rigRecords.contains { $0.string("sent") == "glucose-context" && $0.int("seq") == record.int("seq") }
                #expect(reading.string("meal") == (hasContext ? "preprandial" : nil), context, sourceLocation: sourceLocation)
                #expect(reading.string("tester") == (hasContext ? "self" : nil), context, sourceLocation: sourceLocation)
            }
            #expect(readings.contains { $0.string("meal") != nil } == sent.contains { $0.int("shape") == 4 },
                    "the rig's context record (shape 4) and vigil's readings disagree", sourceLocation: sourceLocation)
        }

        /// The RACP writes the rig received, as hex.
        static func racpRequests(_ run: VigilRun) -> [String] {
            run.rigRecords.filter { $0.string("received") == "racp" }.compactMap { $0.string("hex") }
        }

        /// RACP "report stored records", operator 3 (>=), filter type 1 (sequence number), u16le.
        static func reportAtLeast(_ sequence: Int) -> String {
            String(format: "010301%02x%02x", sequence & 0xFF, sequence >> 8 & 0xFF)
        }

        static func racpLog(_ run: VigilRun) -> String {
            run.rigRecords.filter { $0.has("received") || $0.string("sent") == "racp" || $0.has("event") }
                .map { "\($0)" }.joined(separator: "\n") + "\n" + run.diagnostics
        }
    }
}
