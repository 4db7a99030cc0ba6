import Foundation
import Platform
import Testing

extension Interop {
    /// The page and the Nightscout API served by the real `vigil run` (`[web]`), read by clients
    /// no one here wrote: Debian's Chromium driven through chromedriver (Tests/Rigs/web_browser.py)
    /// and py-nightscout, while Vigil reads the Bumble Dexcom G6 (Tests/Rigs/dexcom_g6.py). Each
    /// client script takes its expected values from Vigil's own event stream.
    ///
    /// One run of the binary serves every check: the number, its live update, an alarm snoozed
    /// from the page, a wrong token refused, the phone layout and the screenshots; then the
    /// follower-app view of the same readings.
    @Suite(bumbleRequired) struct WebPageInteropTests {
        /// A reading every 5 s (dex time 60 times faster), as in DexcomInteropTests.
        static let speed = "60"
        /// A token as `vigil web token` writes it (docs/web.md "Configuration").
        static let token = "interop-Token_0123456789abcdefXYZ"

        /// High at 65 mg/dL: the rig's sine (70 to 190 mg/dL) is always above it, so Vigil raises
        /// "high" with the first reading and the page has an alarm to snooze.
        static func config(transmitterID: String, tokenFile: String, port: UInt16) -> String {
            """
            [face]
            backend = "none"
            [alarms]
            urgent-low = 55
            low = 60
            high = 65
            [web]
            listen = "127.0.0.1:\(port)"
            token-file = "\(tokenFile)"
            [[device]]
            type = "dexcom"
            label = "g6"
            transmitter-id = "\(transmitterID)"
            reading-interval = "5s"

            """
        }

        @Test func aBrowserAndAFollowerLibrarySeeWhatVigilReads() throws {
            let rig = try Rig.launch("dexcom_g6.py", arguments: ["--speed", Self.speed, "--readvertise-after", "10",
                                                                 "--session-age-minutes", "30"])
            defer { rig.stop() }
            let transmitterID = try #require(try rig.info().string("id"))
            let state = try StateDirectory()
            let tokenFile = state.url.appendingPathComponent("web-token")
            try (Self.token + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
            #expect(chmod(tokenFile.path, 0o640) == 0)
            // A port nothing listens on now: the kernel's pick, let go at once (suites run in parallel).
            let port = try TCPListener.listen(host: "127.0.0.1", port: 0).port
            let config = try state.writeConfig(Self.config(transmitterID: transmitterID, tokenFile: tokenFile.path, port: port))
            let daemon = try BackgroundVigil(["run"] + VigilProcess.hci(rig) + [
                "--config", config.path, "--state-dir", state.url.appendingPathComponent("state").path,
                "--events-json", "--log-level", "info", "--seconds", "\(120 * InteropEnvironment.capScale)"])
            defer { daemon.stop() }

            let url = try #require(Self.servedAddress(daemon), "no 'web: serving' line\n\(daemon.summary)")
            #expect(!daemon.stderrText.contains(Self.token), "the token was logged")

            let screenshots = ProcessInfo.processInfo.environment["VIGIL_SCREENSHOTS"]
                ?? state.url.appendingPathComponent("screenshots").path
            let browser = try ChildProcess.run(
                executable: InteropEnvironment.pythonPath,
                arguments: [InteropEnvironment.rigsDirectory.appendingPathComponent("check_web_vigil.py").path,
                            "--url", url, "--token", Self.token, "--alarm", "high", "--screenshots", screenshots,
                            "--events", daemon.directory.appendingPathComponent("stdout").path],
                timeout: .seconds(Int64(150 * InteropEnvironment.capScale)))
            #expect(browser.exitCode == 0, "\(browser.stdoutText)\n\(browser.summary)\n\(daemon.summary)")

            // The readings as Vigil reported them, by their own time (ISO 8601 in UTC sorts as
            // text): what a follower app must read, newest first.
            let reported = daemon.events.filter { $0.string("event") == "reading" && $0.string("kind") == "glucose" }
                .sorted { ($0.string("time") ?? "") < ($1.string("time") ?? "") }
                .compactMap { $0.double("mgdl").map { Int($0.rounded()) } }
            try #require(!reported.isEmpty, "no glucose reported\n\(daemon.summary)")
            let follower = try ChildProcess.run(
                executable: InteropEnvironment.pythonPath,
                arguments: [InteropEnvironment.rigsDirectory.appendingPathComponent("check_nightscout_client.py").path,
                            "--live", url, "--secret", Self.token,
                            "--expect-sgv", reported.reversed().map(String.init).joined(separator: ",")],
                timeout: .seconds(60))
            #expect(follower.exitCode == 0, "\(follower.stdoutText)\n\(follower.summary)")

            #expect(daemon.stop() == 0, "\(daemon.summary)")
            #expect(!daemon.stderrText.contains(Self.token), "the token was logged")
        }

        /// The page's address from Vigil's log line (`web: serving http://127.0.0.1:PORT/`), once
        /// it listens.
        static func servedAddress(_ daemon: BackgroundVigil) -> String? {
            var found: String?
            _ = daemon.wait(upTo: .seconds(Int64(20 * InteropEnvironment.capScale))) {
                guard let range = daemon.stderrText.range(of: #"serving http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return false }
                found = String(daemon.stderrText[range].dropFirst("serving ".count))
                return true
            }
            return found
        }
    }
}
