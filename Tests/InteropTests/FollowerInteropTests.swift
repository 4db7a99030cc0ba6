import Foundation
import Testing

extension Interop {
    /// `vigil run` following remote sources as transmitters (docs/network.md): a Nightscout site
    /// (Tests/Rigs/nightscout_server.py), Dexcom Share and LibreLinkUp (Tests/Rigs/follow_server.py,
    /// reached under their real host names through `--connect-to`, with the rig's test CA as
    /// `[network] ca-file`). The readings each server serves are set by the test and dated by
    /// it; Vigil must report them with their own times and alarm on them by those times.
    ///
    /// Vigil gets a Bumble controller with nothing on it to talk to (the heart-rate rig, no
    /// device of that kind configured), so the Bluetooth side stays quiet.
    @Suite(bumbleRequired) struct FollowerInteropTests {
        static let label = "emma"

        /// A follower of a Nightscout site whose newest reading, dated now, is 50 mg/dL: Vigil
        /// reports it with its own time and sounds urgent low.
        @Test func aNightscoutFollowerRaisesUrgentLowFromTheFollowedSite() throws {
            let run = try NightscoutFollowerRun(serving: [
                ["type": "sgv", "sgv": 58, "direction": "FortyFiveDown", "device": "xDrip-DexcomG6", "ageSeconds": 600],
                ["type": "sgv", "sgv": 54, "direction": "FortyFiveDown", "device": "xDrip-DexcomG6", "ageSeconds": 300],
                ["type": "sgv", "sgv": 50, "direction": "FortyFiveDown", "device": "xDrip-DexcomG6", "ageSeconds": 0],
            ], alarms: "urgent-low = 55\nlow = 70", seconds: 120)
            let (site, vigil) = (run.site, run.vigil)
            let newestDate = try #require(run.served.last?.double("date"))

            let raised = vigil.wait(upTo: .seconds(Int64(60 * InteropEnvironment.capScale))) {
                vigil.events.contains { Self.isRaised($0, "urgent-low") }
            }
            #expect(raised, "no urgent-low from the followed site\n\(vigil.summary)\nrig:\n\(Self.tail(site))")
            let readings = ReportedGlucose.all(in: vigil.events, device: Self.label)
            let newest = readings.first { $0.mgdl == 50 }
            #expect(newest.map { abs($0.seconds * 1000 - newestDate) <= 1000 } == true,
                    "the followed 50 mg/dL is not reported at its own time (\(newestDate) ms): \(readings)")
            // The site was asked with the token Vigil was given, and answered.
            let answered = try site.records().filter { $0.string("event") == "response" && $0.int("status") == 200 }
            #expect(answered.contains { ($0.string("target") ?? "").contains("/api/v1/entries") },
                    "no answered entries request: \(Self.tail(site))")
            #expect(vigil.stop() == 0, "\(vigil.summary)")
            vigil.expectNoSecret([run.token])
        }

        /// A `dexcom-share` and a `librelinkup` follower in one run against the follow rig. The
        /// LibreLinkUp account lives in the EU region: the login at api.libreview.io is answered
        /// with the region redirect, which Vigil must follow to api-eu.libreview.io; the account
        /// follows two people, and Vigil must read the one named in `patient`, listed second.
        @Test func dexcomShareAndLibreLinkUpFollowersReportTheirReadings() throws {
            let controller = try Rig.launch()
            defer { controller.stop() }
            let services = try NetworkRig.follow(["--libre-region", "eu", "--libre-extra-patient", "Other Person"])
            defer { services.stop() }
            let set = try services.command(["readings": [
                ["mgdl": 120, "ageSeconds": 20, "trend": "FortyFiveUp"],
                ["mgdl": 125, "ageSeconds": 320, "trend": "Flat"],
                ["mgdl": 130, "ageSeconds": 620, "trend": "Flat"],
            ], "service": "both"])
            let newestDate = try #require(set.object("result")?.objects("readings")?.first?.double("date"))
            let state = try StateDirectory()
            let config = try NetworkRig.writeSecretConfig(try NetworkRig.networkSection(services) + """
                [face]
                backend = "none"
                [[device]]
                type = "dexcom-share"
                username = "vigil-follower"
                password = "share-password-1"
                server = "us"
                label = "share"
                [[device]]
                type = "librelinkup"
                email = "follower@example.com"
                password = "libre-password-1"
                patient = "Emma Example"
                label = "libre"

                """, in: state)
            let vigil = try BackgroundVigil(["run"] + VigilProcess.hci(controller)
                + NetworkRig.connectTo(services, hosts: ["share2.dexcom.com", "api.libreview.io", "api-eu.libreview.io"]) + [
                    "--config", config.path, "--state-dir", state.url.appendingPathComponent("state").path,
                    "--events-json", "--log-level", "info", "--seconds", "\(120 * InteropEnvironment.capScale)"])
            defer { vigil.stop() }

            func newest(_ device: String) -> ReportedGlucose? {
                ReportedGlucose.all(in: vigil.events, device: device).first { $0.mgdl == 120 }
            }
            let both = vigil.wait(upTo: .seconds(Int64(60 * InteropEnvironment.capScale))) {
                newest("share") != nil && newest("libre") != nil
            }
            #expect(both, "not both followers reported the newest reading\n\(vigil.summary)\nrig:\n\(Self.tail(services))")
            // Share dates to the millisecond, LibreLinkUp's FactoryTimestamp to the second.
            #expect(newest("share").map { abs($0.seconds * 1000 - newestDate) <= 1000 } == true, "share: \(String(describing: newest("share")))")
            #expect(newest("libre").map { abs($0.seconds * 1000 - newestDate) <= 1500 } == true, "libre: \(String(describing: newest("libre")))")
            #expect(!ReportedGlucose.all(in: vigil.events, device: "libre").contains { $0.mgdl == 180 },
                    "the other followed person's readings were taken")

            let logins = try services.records().filter { $0.has("login") }
            #expect(logins.contains { $0.string("login") == "dexcom" && $0.string("result") == "session" && $0.string("host") == "share2.dexcom.com" },
                    "no Share session: \(logins)")
            let redirect = logins.firstIndex { $0.string("login") == "libre" && $0.string("result") == "redirect" && $0.string("host") == "api.libreview.io" }
            let token = logins.firstIndex { $0.string("login") == "libre" && $0.string("result") == "token" && $0.string("host") == "api-eu.libreview.io" }
            #expect(redirect != nil && token != nil && redirect! < token!, "the region redirect was not followed: \(logins)")
            #expect(vigil.stop() == 0, "\(vigil.summary)")
            vigil.expectNoSecret(["share-password-1", "libre-password-1"])
        }

        /// The followed site's newest reading is 9 minutes 45 s old when Vigil reads it; then
        /// the site stops answering (it accepts connections and says nothing). With
        /// `signal-loss-minutes = 10` the alarm is due 10 minutes after the reading's own
        /// time, a quarter of a minute into the run: not 10 minutes after it arrived, and not
        /// later because requests hang.
        @Test func aFollowerWhoseServerStopsAnsweringRaisesSignalLossOnTime() throws {
            let run = try NightscoutFollowerRun(serving: [
                ["type": "sgv", "sgv": 120, "direction": "Flat", "device": "xDrip-DexcomG6", "ageSeconds": 585],
            ], alarms: "signal-loss-minutes = 10", seconds: 180)
            let (site, vigil) = (run.site, run.vigil)
            let readingDate = try #require(run.served.first?.double("date"))

            let read = vigil.wait(upTo: .seconds(Int64(30 * InteropEnvironment.capScale))) {
                !ReportedGlucose.all(in: vigil.events, device: Self.label).isEmpty
            }
            try #require(read, "the followed reading never arrived\n\(vigil.summary)\nrig:\n\(Self.tail(site))")
            try site.fault("silent")

            let dueIn = readingDate / 1000 + 600 - Date().timeIntervalSince1970
            let raised = vigil.wait(upTo: .seconds(Int64(max(dueIn, 0) + 30) * Int64(InteropEnvironment.capScale))) {
                vigil.events.contains { Self.isRaised($0, "signal-loss") }
            }
            let alarm = vigil.events.first { Self.isRaised($0, "signal-loss") }
            #expect(raised, "no signal loss after the site went silent\n\(vigil.summary)")
            #expect(alarm?.string("alarm") == "signal-loss:\(Self.label)", "\(String(describing: alarm))")
            if let time = alarm?.string("time"), let seconds = NetworkTime.seconds(time) {
                let age = seconds - readingDate / 1000
                #expect(age >= 599 && age <= 605, "signal loss raised \(age) s after the reading's time, due at 600 s")
            }
            #expect(vigil.stop() == 0, "\(vigil.summary)")
            vigil.expectNoSecret([run.token])
        }

        /// An alarm event raising `name` (or, for `signal-loss`, any device's).
        static func isRaised(_ event: JSONObject, _ name: String) -> Bool {
            guard event.string("event") == "alarm", event.string("change") == "raised", let alarm = event.string("alarm") else { return false }
            return alarm == name || (name == "signal-loss" && alarm.hasPrefix("signal-loss:"))
        }

        static func tail(_ rig: Rig) -> String {
            ((try? rig.records()) ?? []).suffix(30).map { "\($0)" }.joined(separator: "\n")
        }
    }

    /// A `vigil run` following a Nightscout site (labelled `FollowerInteropTests.label`) that
    /// serves `entries` (the rig's `serve` command, `ageSeconds` dating each before now), with
    /// the token of a subject that may read; everything is stopped at deinit.
    final class NightscoutFollowerRun {
        let controller: Rig
        let site: Rig
        let state: StateDirectory
        let vigil: BackgroundVigil
        let token: String
        /// The documents as the site stored them (their `date` in ms).
        let served: [JSONObject]

        init(serving entries: [[String: Any]], alarms: String, seconds: Int) throws {
            controller = try Rig.launch()
            site = try NetworkRig.nightscout(tokens: ["vigil=readable"])
            token = try #require(try site.info().object("tokens")?.string("vigil"))
            served = try #require(try site.command(["serve": entries]).object("result")?.objects("served"))
            state = try StateDirectory()
            let config = try NetworkRig.writeSecretConfig(try NetworkRig.networkSection(site) + """
                [face]
                backend = "none"
                [alarms]
                \(alarms)
                [[device]]
                type = "nightscout"
                url = "https://\(NetworkRig.nightscoutHost)"
                token = "\(token)"
                label = "\(FollowerInteropTests.label)"

                """, in: state)
            vigil = try BackgroundVigil(["run"] + VigilProcess.hci(controller)
                + NetworkRig.connectTo(site, hosts: [NetworkRig.nightscoutHost]) + [
                    "--config", config.path, "--state-dir", state.url.appendingPathComponent("state").path,
                    "--events-json", "--log-level", "info", "--seconds", "\(seconds * InteropEnvironment.capScale)"])
        }

        deinit {
            vigil.stop()
            site.stop()
            controller.stop()
        }
    }
}
