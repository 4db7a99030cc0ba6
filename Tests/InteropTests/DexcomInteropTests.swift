import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "dexcom"` device against `Tests/Rigs/dexcom_g6.py`, a simulated
    /// G6 that authenticates with AES-128-ECB (Python `cryptography`, independent of Vigil's
    /// swift-crypto), demands a bond, and logs every glucose and backfill record it sends.
    /// Expected values come from that log (`{"sent":"glucose"|"backfill",...}`), never from
    /// constants here.
    @Suite(bumbleRequired) struct DexcomInteropTests {
        /// 60 dex seconds per real second: a new reading every 5 s, so two sessions 10 s apart
        /// straddle a gap of about two missed readings (10 min of dex time, over the driver's
        /// 330 s gap threshold).
        static let speed = "60"
        static let readvertiseAfterSeconds = "10"
        static let seconds = 17
        /// One reading every 300 dex seconds (docs/dexcom.md, Pacing; the rig's READING_INTERVAL).
        static let readingInterval = 300

        /// The rig's dex time runs 60 times faster, so its readings come every 5 real seconds:
        /// the driver paces its sessions by that interval, as it paces a real G6's 5 minutes.
        static func config(transmitterID: String) -> String {
            "[[device]]\ntype = \"dexcom\"\nlabel = \"g6\"\ntransmitter-id = \"\(transmitterID)\"\nreading-interval = \"5s\"\n"
        }

        @Test func authenticatesBondsReadsGlucoseAndBackfillsTheGapWithoutDuplicates() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: [
                "--speed", Self.speed, "--readvertise-after", Self.readvertiseAfterSeconds,
                // A short sensor session keeps the first backfill (from the session start) small.
                "--session-age-minutes", "30",
            ])
            defer { rig.stop() }
            let info = try rig.info()
            let transmitterID = try #require(info.string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig(Self.config(transmitterID: transmitterID))
            // Ends once the second session is over (its Disconnect written) and every reading the
            // rig sent is in; `seconds` is the cap.
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: Self.seconds,
                                   waitForClientClose: true) { run in
                run.rigRecords.filter { $0.string("event") == "disconnect-requested" }.count >= 2
                    && run.glucoseValues().count >= Self.expectedReadings(run.rigRecords).count
            }
            try run.expectCleanExit()

            // Authentication with the AES hash: the rig checked vigil's answer to its challenge.
            let authentications = run.rigRecords.filter { $0.string("event") == "authenticated" }
            #expect(authentications.count >= 2, "want two authenticated sessions\n\(Self.rigLog(run))\n\(run.diagnostics)")
            #expect(!run.rigRecords.contains { $0.string("event") == "auth-failed" }, "\(Self.rigLog(run))")

            // Bonding: the first session asks for the bond and pairs (LE Secure Connections);
            // the second re-encrypts with it and the rig reports the central as bonded.
            #expect(run.rigRecords.contains { $0.string("event") == "bond-request" }, "no BondRequest\n\(Self.rigLog(run))")
            let rigPairings = run.rigRecords.filter { $0.string("event") == "paired" }
            #expect(rigPairings.count == 1, "rig pairings: \(rigPairings)")
            #expect(rigPairings.first?.bool("secureConnections") == true)
            let paired = try #require(run.events(named: "paired").first, "no paired event\n\(run.diagnostics)")
            #expect(paired.string("address") == run.address)
            #expect(paired.bool("secureConnections") == true)
            #expect(authentications.dropFirst().contains { $0.bool("bonded") == true },
                    "the second session was not bonded: \(authentications)")
            #expect(run.events(named: "encrypted").contains { $0.bool("bonded") == true }, "\(run.diagnostics)")

            // Clean disconnection each cycle (Disconnect 0x09), and a second session after the gap.
            let requested = run.rigRecords.filter { $0.string("event") == "disconnect-requested" }
            #expect(requested.count >= 1, "vigil never sent Disconnect\n\(Self.rigLog(run))")
            #expect(run.events(named: "connected").count >= 2, "want two sessions\n\(run.diagnostics)")

            // Glucose: every record the rig sent (live, then backfill), in the order it sent
            // them, once per dex time: what vigil must report, value and trend.
            let expected = Self.expectedReadings(run.rigRecords)
            let readings = run.glucoseValues()
            #expect(readings.count == expected.count,
                    "vigil reported \(readings.count) glucose readings, the rig sent \(expected.count) distinct\n\(readings)\n\(expected)\n\(Self.rigLog(run))\n\(run.diagnostics)")
            for (index, (reading, record)) in zip(readings, expected).enumerated() {
                let context = Comment(rawValue: "reading \(index): \(reading) vs sent \(record)")
                #expect(reading.address == run.address, context)
                #expect(reading.kind == "glucose", context)
                #expect(reading.mgdl == Double(record.mgdl), context)
                #expect(reading.trend == Self.nightscoutDirection(trendTenths: record.trend), context)
            }
            // One record per reading (a backfill batch must not collapse into repeated keys).
            #expect(run.readingLinesWithRepeatedKeys().isEmpty, "\(run.readingLinesWithRepeatedKeys())")
            // Stored without duplicates: every reading has its own time, and within a session
            // (one anchor for dex time) the times are as far apart as the rig's dex times.
            let times = readings.compactMap(\.time)
            #expect(times.count == readings.count && Set(times).count == times.count, "times: \(times)")
            for session in Set(readings.map(\.session)) {
                let pairs = zip(readings, expected).filter { $0.0.session == session }
                guard let (anchor, anchorRecord) = pairs.first, let anchorSeconds = anchor.seconds else { continue }
                for (reading, record) in pairs {
                    let offset = (reading.seconds ?? .nan) - anchorSeconds
                    #expect(abs(offset - Double(record.dexTime - anchorRecord.dexTime)) <= 1,
                            "session \(session): \(reading) is \(offset) s from \(anchor), dex times \(record.dexTime - anchorRecord.dexTime) s apart")
                }
            }

            // The backfill after the gap: the second session's live reading is more than one
            // interval after the first session's, the rig backfilled the times between, and
            // vigil reported each of them (once: the count above has no room for duplicates).
            let live = run.rigRecords.filter { $0.string("sent") == "glucose" }.compactMap { $0.int("dexTime") }
            try #require(live.count >= 2, "want a live reading per session: \(live)\n\(Self.rigLog(run))")
            let missed = Set(stride(from: live[0] + Self.readingInterval, to: live[1], by: Self.readingInterval))
            #expect(!missed.isEmpty, "no gap between the sessions' live readings \(live)")
            let backfilled = Set(run.rigRecords.filter { $0.string("sent") == "backfill" }
                .flatMap { Self.backfillRecords($0) }.map(\.dexTime))
            #expect(missed.isSubset(of: backfilled), "gap \(missed.sorted()) not backfilled: \(backfilled.sorted())")
            let reported = Set(expected.map(\.dexTime))
            #expect(missed.isSubset(of: reported))
            // No reading is missing from the first backfilled time to the last live one.
            if let first = reported.min(), let last = reported.max() {
                let grid = Set(stride(from: first, through: last, by: Self.readingInterval))
                #expect(grid == reported, "holes in \(reported.sorted())")
            }
        }

        @Test func wrongTransmitterIDIsReportedAsMismatchAndGivesNoGlucose() throws {
            // The rig advertises and serves 8112AB but answers the token with another ID's key,
            // as a transmitter with a different ID would.
            let rig = try Rig.launch("dexcom_g6.py", arguments: [
                "--id", "8112AB", "--answer-as", "8134CD", "--speed", Self.speed, "--readvertise-after", "3",
            ])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig(Self.config(transmitterID: transmitterID))
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 10, waitForClientClose: true)
            try run.expectCleanExit()

            // The rig did hand out a challenge (so vigil reached the token check) ...
            let challenges = run.rigRecords.filter {
                $0.string("sent") == "authentication" && $0.string("hex")?.hasPrefix("03") == true
            }
            #expect(!challenges.isEmpty, "the rig never answered AuthRequestTx\n\(Self.rigLog(run))\n\(run.diagnostics)")
            // ... and vigil says why it stopped, in the words users see.
            let mismatches = run.events.filter {
                $0.string("reason")?.contains("transmitter ID mismatch") == true
            }
            #expect(!mismatches.isEmpty, "no transmitter ID mismatch event\n\(run.diagnostics)")
            #expect(run.events(named: "incompatible").contains { $0.string("reason")?.contains("transmitter ID mismatch") == true },
                    "\(run.diagnostics)")
            // Nothing after the failed check: no answer to the challenge, no glucose either side.
            #expect(!run.rigRecords.contains { $0.string("event") == "authenticated" }, "\(Self.rigLog(run))")
            #expect(!run.rigRecords.contains { $0.string("sent") == "glucose" }, "\(Self.rigLog(run))")
            #expect(run.events(named: "reading").isEmpty, "\(run.diagnostics)")
        }

        @Test func glucoseRepliesWithABadCRCAreDiscardedWithTheirReason() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: ["--speed", Self.speed, "--bad-crc"])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig(Self.config(transmitterID: transmitterID))
            // Ends with the session: vigil has written its Disconnect (`seconds` is the cap).
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 6, waitForClientClose: true) { run in
                run.rigRecords.contains { $0.string("event") == "disconnect-requested" } && !run.events(named: "malformed-value").isEmpty
            }
            try run.expectCleanExit()

            let corrupted = run.rigRecords.filter { $0.string("sent") == "glucose" && $0.bool("badCrc") == true }
            try #require(!corrupted.isEmpty, "the rig sent no glucose reply\n\(Self.rigLog(run))\n\(run.diagnostics)")
            let malformed = run.events(named: "malformed-value").filter { $0.string("reason")?.lowercased().contains("crc") == true }
            #expect(!malformed.isEmpty, "no malformed-value naming the CRC\n\(run.diagnostics)")
            // Nothing from a reply that failed its check: no glucose at all (without a valid
            // glucose reply there is no gap to backfill either).
            #expect(run.glucoseValues().isEmpty, "\(run.glucoseValues())")
            // The session still ends cleanly, so the next 5-minute cycle can try again.
            #expect(run.rigRecords.contains { $0.string("event") == "disconnect-requested" }, "\(Self.rigLog(run))")
        }

        @Test func aBackfillMissingAFrameIsDiscardedAndTheLiveReadingsStay() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: ["--speed", Self.speed, "--truncate-backfill"])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let config = try state.writeConfig(Self.config(transmitterID: transmitterID))
            // Ends with the session, once its live readings are in (`seconds` is the cap).
            let run = try VigilRun(rig: rig, state: state, configFile: config, seconds: 6, waitForClientClose: true) { run in
                run.rigRecords.contains { $0.string("event") == "disconnect-requested" } && !run.events(named: "malformed-value").isEmpty
                    && run.glucoseValues().count >= run.rigRecords.filter { $0.string("sent") == "glucose" }.count
            }
            try run.expectCleanExit()

            let truncated = run.rigRecords.filter { $0.string("sent") == "backfill" && $0.bool("truncated") == true }
            try #require(!truncated.isEmpty, "the rig sent no truncated backfill\n\(Self.rigLog(run))\n\(run.diagnostics)")
            #expect(run.events(named: "malformed-value").contains { $0.string("reason")?.contains("backfill discarded") == true },
                    "no 'backfill discarded'\n\(run.diagnostics)")
            // Only the live readings, exactly as sent; none of the discarded backfill's records.
            let expected = Self.expectedReadings(run.rigRecords)
            let live = run.rigRecords.filter { $0.string("sent") == "glucose" }.count
            #expect(expected.count == live)
            let readings = run.glucoseValues()
            #expect(readings.map(\.mgdl) == expected.map { Double($0.mgdl) }, "\(readings) vs \(expected)")
        }

        // MARK: - The rig's log

        struct SentReading: Equatable {
            var dexTime: Int
            var mgdl: Int
            var trend: Int
        }

        /// `{"sent":"backfill","records":[[dexTime, mgdl, state, trend], ...]}`.
        static func backfillRecords(_ line: JSONObject) -> [SentReading] {
            guard let records = line["records"] as? [[NSNumber]] else { return [] }
            return records.compactMap { record in
                record.count == 4 ? SentReading(dexTime: record[0].intValue, mgdl: record[1].intValue, trend: record[3].intValue) : nil
            }
        }

        /// What the rig sent, in order, each dex time once: the transmitter repeats in a
        /// backfill what a live reading already gave, and history must hold it once.
        static func expectedReadings(_ records: [JSONObject]) -> [SentReading] {
            var seen = Set<Int>()
            var out: [SentReading] = []
            for line in records {
                var sent: [SentReading] = []
                if line.string("sent") == "glucose", line.bool("badCrc") != true,
                   let t = line.int("dexTime"), let mgdl = line.int("mgdl"), let trend = line.int("trend") {
                    sent = [SentReading(dexTime: t, mgdl: mgdl, trend: trend)]
                } else if line.string("sent") == "backfill", line.bool("truncated") != true {
                    sent = backfillRecords(line)
                }
                for reading in sent where seen.insert(reading.dexTime).inserted { out.append(reading) }
            }
            return out
        }

        /// The Nightscout direction for a Dexcom trend byte (0.1 mg/dL/min, docs/trend-arrows.md):
        /// the ±1/±2/±3 mg/dL/min arrow buckets Nightscout and xDrip use.
        static func nightscoutDirection(trendTenths: Int) -> String {
            if trendTenths == 127 || trendTenths == -128 { return "NOT COMPUTABLE" }
            // xDrip+'s BgReading.slopeName, written out here from the source (mg/dL per minute,
            // every band closed at its upper edge), not taken from Vigil's table.
            let rate = Double(trendTenths) / 10
            switch rate {
            case ...(-3.5): return "DoubleDown"
            case ...(-2): return "SingleDown"
            case ...(-1): return "FortyFiveDown"
            case ...1: return "Flat"
            case ...2: return "FortyFiveUp"
            case ...3.5: return "SingleUp"
            case ...40: return "DoubleUp"
            default: return "NONE"
            }
        }

        static func rigLog(_ run: VigilRun) -> String {
            "rig log:\n" + run.rigRecords.compactMap { line in
                (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
            }.joined(separator: "\n").suffix(4_000)
        }
    }
}
