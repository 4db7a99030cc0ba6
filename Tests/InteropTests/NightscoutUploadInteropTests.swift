import Foundation
import Testing

extension Interop {
    /// `vigil run` with the Bumble Dexcom G6 (Tests/Rigs/dexcom_g6.py) and `[nightscout]` set,
    /// uploading to the Nightscout test server (Tests/Rigs/nightscout_server.py) over TLS with the
    /// server's test CA as `[network] ca-file`. What must hold is the queue's promise
    /// (docs/network.md): every reading Vigil reported is stored by the server exactly once, in
    /// the order Vigil reported it, whatever failed on the way. The expected readings come from
    /// Vigil's own `--events-json` stream, what arrived from the server's record of every
    /// document it stored (`{"accepted":"entries",...}`).
    @Suite(bumbleRequired) struct NightscoutUploadInteropTests {
        /// 60 dex seconds per real second: a reading every 5 s. The transmitter is connectable
        /// again a second after each session and its sensor session is a minute old. At that
        /// speed a reading's age in dex seconds, which Vigil dates it by, is 60 times its age in
        /// real time, so the dates Vigil gives are not in the order it reports the readings:
        /// the order checked is the queue's, oldest date first in every request.
        static let g6Arguments = ["--speed", "60", "--readvertise-after", "1", "--session-age-minutes", "1"]

        static func config(transmitterID: String, site: Rig) throws -> String {
            try NetworkRig.networkSection(site) + """
            [face]
            backend = "none"
            [nightscout]
            url = "https://\(NetworkRig.nightscoutHost)"
            api-secret = "\(NetworkRig.apiSecret)"
            [[device]]
            type = "dexcom"
            label = "g6"
            transmitter-id = "\(transmitterID)"
            reading-interval = "5s"

            """
        }

        /// One vigil run through every fault the server can show, each followed by normal
        /// service and the wait until everything Vigil reported so far is stored: the network
        /// gone (connections refused) for three readings, a certificate from another root, for
        /// another name and an expired one, 401
        /// (Nightscout's body), 503 (a host's error page), a server that accepts and never
        /// speaks (Vigil must give up by its own time-out), one that hangs up on the request,
        /// and one that stores the upload but whose answer is lost (Vigil sends it again; the
        /// server's de-duplication keeps one).
        @Test func uploadsEveryReadingOnceInOrderThroughEveryFault() throws {
            let g6 = try Rig.launch("dexcom_g6.py", arguments: Self.g6Arguments)
            defer { g6.stop() }
            let site = try NetworkRig.nightscout()
            defer { site.stop() }
            let transmitterID = try #require(try g6.info().string("id"))
            let secretHash = try #require(try site.info().string("apiSecretSha1"))
            let state = try StateDirectory()
            let config = try NetworkRig.writeSecretConfig(try Self.config(transmitterID: transmitterID, site: site), in: state)
            let vigil = try BackgroundVigil(["run"] + VigilProcess.hci(g6)
                + NetworkRig.connectTo(site, hosts: [NetworkRig.nightscoutHost]) + [
                    "--config", config.path, "--state-dir", state.url.appendingPathComponent("state").path,
                    "--events-json", "--log-level", "info", "--seconds", "\(900 * InteropEnvironment.capScale)"])
            defer { vigil.stop() }
            let upload = UploadWatch(vigil: vigil, site: site)

            try #require(upload.waitUntilAllStored(atLeast: 2), "no upload under normal service\n\(upload.summary)")

            // The network gone for a while: three readings queue up, then every one arrives.
            try site.fault("refuse")
            #expect(upload.waitForNewReadings(3), "no readings while the network was gone\n\(upload.summary)")
            try site.fault("normal")
            try #require(upload.waitUntilAllStored(), "the queue did not drain after the network came back\n\(upload.summary)")

            // Each failure, as the server saw Vigil meet it, then normal service again.
            let faults: [(mode: String, status: Int?, seen: (JSONObject) -> Bool)] = [
                // TLS: a chain to another root, a certificate for another name, an expired one.
                ("wrong-cert", nil, { $0.string("event") == "tls-failed" }),
                ("wrong-name", nil, { $0.string("event") == "tls-failed" }),
                ("expired", nil, { $0.string("event") == "tls-failed" }),
                ("status", 401, { $0.string("event") == "response" && $0.int("status") == 401 }),
                ("status", 503, { $0.string("event") == "response" && $0.int("status") == 503 }),
                // Vigil's TLS time-out (10 s, docs/network.md) closes the connection.
                ("silent", nil, { $0.string("event") == "held-closed-by-client" }),
                ("hang-up", nil, { $0.string("event") == "request-unanswered" }),
                ("lost-answer", nil, { $0.string("event") == "answer-lost" }),
            ]
            for fault in faults {
                let start = site.lineCount
                try site.fault(fault.mode, status: fault.status)
                let seen = try site.waitFor(since: start, timeout: .seconds(Int64(90 * InteropEnvironment.capScale)), fault.seen)
                #expect(seen != nil, "vigil never met fault \(fault.mode) \(fault.status.map(String.init) ?? "")\n\(upload.summary)")
                try site.fault("normal")
                // Stop at the first fault whose readings never arrive: the later phases would
                // only wait out their caps.
                try #require(upload.waitUntilAllStored(), "not everything arrived after fault \(fault.mode)\n\(upload.summary)")
            }

            #expect(vigil.stop() == 0, "\(vigil.summary)")
            upload.expectEachReadingStoredOnceInOrder()
            vigil.expectNoSecret([NetworkRig.apiSecret, secretHash])
        }

        /// The site's name does not resolve (`.invalid`, no `--connect-to`): the server hears
        /// nothing while readings queue up. Vigil is stopped with its queue full and started
        /// again with the name reaching the server: the first run's readings arrive once each,
        /// before the second run's, in order.
        @Test func queuesWhileTheNameDoesNotResolveAndDeliversTheQueueAfterARestart() throws {
            let g6 = try Rig.launch("dexcom_g6.py", arguments: Self.g6Arguments)
            defer { g6.stop() }
            let site = try NetworkRig.nightscout()
            defer { site.stop() }
            let transmitterID = try #require(try g6.info().string("id"))
            let state = try StateDirectory()
            let config = try NetworkRig.writeSecretConfig(try Self.config(transmitterID: transmitterID, site: site), in: state)
            let arguments = ["run"] + VigilProcess.hci(g6) + [
                "--config", config.path, "--state-dir", state.url.appendingPathComponent("state").path,
                "--events-json", "--log-level", "info", "--seconds", "\(300 * InteropEnvironment.capScale)"]

            let siteStart = site.lineCount
            let offline = try BackgroundVigil(arguments)
            let first = UploadWatch(vigil: offline, site: site)
            #expect(first.waitForNewReadings(3, after: 0), "no readings in the first run\n\(first.summary)")
            #expect(offline.stop() == 0, "\(offline.summary)")
            let queued = first.reported()
            let heard = try site.records(since: siteStart).filter { $0.string("event") == "connection" }
            #expect(heard.isEmpty, "the server was reached although the name cannot resolve: \(heard)")

            let online = try BackgroundVigil(arguments + NetworkRig.connectTo(site, hosts: [NetworkRig.nightscoutHost]))
            defer { online.stop() }
            let second = UploadWatch(vigil: online, site: site, earlier: queued)
            #expect(second.waitUntilAllStored(atLeast: queued.count + 2),
                    "the queue of the first run was not delivered after the restart\n\(second.summary)")
            #expect(online.stop() == 0, "\(online.summary)")
            second.expectEachReadingStoredOnceInOrder()
        }

        /// The whole chain: one `vigil run` hears a Bumble Dexcom G6 reading 50 mg/dL and uploads
        /// it; a second `vigil run`, following the same site as a `nightscout` device with a
        /// token that may only read, raises urgent low from what the first uploaded.
        @Test func aSecondVigilFollowingTheSiteRaisesUrgentLowFromTheFirstsUploads() throws {
            let g6 = try Rig.launch("dexcom_g6.py", arguments: ["--glucose-mgdl", "50", "--readvertise-after", "1"])
            defer { g6.stop() }
            let site = try NetworkRig.nightscout(tokens: ["follower=readable"])
            defer { site.stop() }
            let transmitterID = try #require(try g6.info().string("id"))
            let token = try #require(try site.info().object("tokens")?.string("follower"))
            let uploaderState = try StateDirectory()
            let uploaderConfig = try NetworkRig.writeSecretConfig(try NetworkRig.networkSection(site) + """
                [face]
                backend = "none"
                [nightscout]
                url = "https://\(NetworkRig.nightscoutHost)"
                api-secret = "\(NetworkRig.apiSecret)"
                [[device]]
                type = "dexcom"
                label = "g6"
                transmitter-id = "\(transmitterID)"

                """, in: uploaderState)
            let uploader = try BackgroundVigil(["run"] + VigilProcess.hci(g6)
                + NetworkRig.connectTo(site, hosts: [NetworkRig.nightscoutHost]) + [
                    "--config", uploaderConfig.path, "--state-dir", uploaderState.url.appendingPathComponent("state").path,
                    "--events-json", "--log-level", "info", "--seconds", "\(180 * InteropEnvironment.capScale)"])
            defer { uploader.stop() }
            let stored = uploader.wait(upTo: .seconds(Int64(60 * InteropEnvironment.capScale))) {
                StoredEntry.all(in: (try? site.records()) ?? []).contains { $0.type == "sgv" && $0.sgv == 50 }
            }
            try #require(stored, "the first vigil uploaded no 50 mg/dL\n\(uploader.summary)")

            let controller = try Rig.launch()
            defer { controller.stop() }
            let followerState = try StateDirectory()
            let followerConfig = try NetworkRig.writeSecretConfig(try NetworkRig.networkSection(site) + """
                [face]
                backend = "none"
                [alarms]
                urgent-low = 55
                [[device]]
                type = "nightscout"
                url = "https://\(NetworkRig.nightscoutHost)"
                token = "\(token)"
                label = "followed"

                """, in: followerState)
            let follower = try BackgroundVigil(["run"] + VigilProcess.hci(controller)
                + NetworkRig.connectTo(site, hosts: [NetworkRig.nightscoutHost]) + [
                    "--config", followerConfig.path, "--state-dir", followerState.url.appendingPathComponent("state").path,
                    "--events-json", "--log-level", "info", "--seconds", "\(120 * InteropEnvironment.capScale)"])
            defer { follower.stop() }
            let raised = follower.wait(upTo: .seconds(Int64(60 * InteropEnvironment.capScale))) {
                follower.events.contains { FollowerInteropTests.isRaised($0, "urgent-low") }
            }
            #expect(raised, "the follower raised no urgent low\n\(follower.summary)")
            let followed = ReportedGlucose.all(in: follower.events, device: "followed")
            let uploaded = ReportedGlucose.all(in: uploader.events, device: "g6")
            #expect(followed.contains { reading in reading.mgdl == 50 && uploaded.contains { abs($0.seconds - reading.seconds) <= 1 } },
                    "the follower's 50 mg/dL is not a reading the first vigil reported at that time: \(followed) / \(uploaded)")
            #expect(follower.stop() == 0, "\(follower.summary)")
            #expect(uploader.stop() == 0, "\(uploader.summary)")
            follower.expectNoSecret([token])
            uploader.expectNoSecret([NetworkRig.apiSecret])
        }
    }
}

/// Vigil's reported readings against the Nightscout rig's stored entries, while a run goes on.
struct UploadWatch {
    let vigil: BackgroundVigil
    let site: Rig
    /// Readings an earlier run reported (queued then), before this run's.
    var earlier: [ReportedGlucose] = []
    var device = "g6"

    /// Every reading reported so far, earlier runs first, each once: a restarted driver
    /// reports a reading the history already holds again (backfilled, dated anew), and the
    /// sensor's stamp says it is the same; the first copy is the one stored and queued.
    func reported() -> [ReportedGlucose] {
        var seen = Set<String>()
        return (earlier + ReportedGlucose.all(in: vigil.events, device: device)).filter {
            seen.insert($0.stamp ?? "\(Int($0.seconds.rounded()))/\($0.mgdl)").inserted
        }
    }

    func stored() -> [StoredEntry] { StoredEntry.all(in: (try? site.records()) ?? []) }

    func missing() -> [ReportedGlucose] {
        let stored = stored().filter { !$0.duplicate }
        return reported().filter { $0.match(in: stored).isEmpty }
    }

    /// Waits (bounded) until at least `count` readings were reported and every one is stored.
    func waitUntilAllStored(atLeast count: Int = 1, upTo limit: Duration = .seconds(Int64(120 * InteropEnvironment.capScale))) -> Bool {
        vigil.wait(upTo: limit) { reported().count >= count && missing().isEmpty }
    }

    /// Waits (bounded) for `count` readings beyond the `after` reported (default: so far).
    func waitForNewReadings(_ count: Int, after: Int? = nil) -> Bool {
        let base = after ?? reported().count
        return vigil.wait(upTo: .seconds(Int64((10 * count + 30) * InteropEnvironment.capScale))) { reported().count >= base + count }
    }

    /// Each reported reading stored exactly once (a second copy only as the server's
    /// de-duplication of an upload whose answer was lost), nothing stored that Vigil did not
    /// report, every request oldest first (the queue's order, docs/nightscout-upload.md), and
    /// the `earlier` run's queue delivered before anything this run reported.
    func expectEachReadingStoredOnceInOrder(sourceLocation: SourceLocation = #_sourceLocation) {
        let reported = reported()
        let all = stored()
        let firsts = all.filter { !$0.duplicate && $0.type == "sgv" }
        #expect(!reported.isEmpty, "no readings\n\(summary)", sourceLocation: sourceLocation)
        for reading in reported {
            let matches = reading.match(in: firsts)
            #expect(matches.count == 1, "\(reading) stored \(matches.count) times: \(matches)", sourceLocation: sourceLocation)
        }
        let unexplained = firsts.filter { entry in !reported.contains { !$0.match(in: [entry]).isEmpty } }
        #expect(unexplained.isEmpty, "stored but never reported: \(unexplained)", sourceLocation: sourceLocation)
        for (request, entries) in Dictionary(grouping: all.filter { $0.type == "sgv" }, by: \.request) {
            let dates = entries.sorted { $0.seq < $1.seq }.compactMap(\.seconds)
            #expect(dates == dates.sorted(), "request \(request) not oldest first: \(entries)", sourceLocation: sourceLocation)
        }
        let backlog = firsts.filter { entry in earlier.contains { !$0.match(in: [entry]).isEmpty } }
        let live = firsts.filter { entry in !earlier.contains { !$0.match(in: [entry]).isEmpty } }
        if let lastQueued = backlog.map(\.seq).max(), let firstLive = live.map(\.seq).min() {
            #expect(lastQueued < firstLive, "the earlier run's queue was not delivered first: \(firsts)", sourceLocation: sourceLocation)
        }
        let lost = lostAnswerTimes()
        let resent = all.filter { $0.duplicate && !lost.contains($0.sysTime) }
        #expect(resent.isEmpty, "uploaded again although the server had answered: \(resent)", sourceLocation: sourceLocation)
    }

    /// The sysTimes of entries whose storing request's answer the rig dropped (`lost-answer`):
    /// the only ones Vigil cannot know were stored.
    func lostAnswerTimes() -> Set<String> {
        var byRequest: [Int: [String]] = [:]
        var lastRequest: Int?
        var lost = Set<String>()
        for record in (try? site.records()) ?? [] {
            if record.string("accepted") == "entries", let request = record.int("request"),
               let sysTime = record.object("document")?.string("sysTime") {
                byRequest[request, default: []].append(sysTime)
                lastRequest = request
            } else if record.string("event") == "answer-lost", let request = lastRequest {
                lost.formUnion(byRequest[request] ?? [])
            }
        }
        return lost
    }

    var summary: String {
        "reported: \(reported())\nmissing: \(missing())\nstored: \(stored())\n\(vigil.summary)\nrig stderr:\n\(site.stderrText.suffix(1_000))"
    }
}
