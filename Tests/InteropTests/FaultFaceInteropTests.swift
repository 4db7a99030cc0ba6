import Foundation
import Testing

extension Interop {
    /// The face failing: `vigil run` configured for a GPIO face on a machine whose
    /// lines cannot be had keeps running, raises fault:face-failing on `--events-json`, shows
    /// it in `vigil status` and systemd's STATUS line, says why in the log, and tries the
    /// hardware again (a chip that appears later is taken: `scripts/kernel-test`, gpio-sim).
    @Suite struct FaultFaceInteropTests {
        @Test(.enabled(if: noGPIOChip, "this machine has a /dev/gpiochip*: the face would open"))
        func aFaceWhoseLinesCannotBeOpenedIsAFaultShownEverywhere() throws {
            let state = try StateDirectory()
            let config = try state.writeConfig("[face]\nbackend = \"gpio\"\nboard = \"pi-zero-2w\"\n")
            let socket = state.url.path + "/status.sock"
            let notifications = try NotificationReceiver()
            // No controller either (nothing listens on port 1): the face fault must not wait
            // for a radio, a board with neither is exactly when it matters.
            let run = try BackgroundVigil(["run", "--config", config.path, "--hci", "tcp:127.0.0.1:1", "--state-dir", state.url.path,
                                           "--status-socket", socket, "--events-json", "--log-level", "info", "--seconds", "30"],
                                          environment: notifications.vigilEnvironment)
            defer { run.stop() }
            let raised: (JSONObject) -> Bool = {
                $0.string("event") == "alarm" && $0.string("alarm") == "fault:face-failing" && $0.string("change") == "raised"
            }
            #expect(run.wait(upTo: .seconds(15)) { run.events.contains(where: raised) }, "no face fault raised\n\(run.summary)")
            #expect(run.waitForLog("cannot open the GPIO face (board pi-zero-2w"), "\(run.summary)")
            #expect(run.waitForLog("face: the face hardware could not be opened"), "\(run.summary)")

            let status = try VigilProcess().run(["status", "--socket", socket, "--json"], timeout: .seconds(10))
            #expect(status.exitCode == 0, "\(status.summary)")
            let faults = try status.jsonDocument().objects("faults") ?? []
            #expect(faults.contains { $0.string("alarm") == "fault:face-failing" }, "\(status.stdoutText)")

            var statusLines: [String] = []
            while let datagram = notifications.receive(timeoutMilliseconds: 500) {
                statusLines += datagram.split(separator: "\n").map(String.init).filter { $0.hasPrefix("STATUS=") }
            }
            #expect(statusLines.contains { $0.contains("face") }, "systemd was told: \(statusLines)\n\(run.summary)")
            #expect(run.stop() == 0, "\(run.summary)")
        }
    }
}
