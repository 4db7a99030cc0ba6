import Foundation
import Testing

extension Interop {
    /// `vigil run` with a `type = "bubble"` device against `Tests/Rigs/bubble.py`, a Bubble
    /// bridge serving the real Libre 1 dump or, with `--libre2`, a published encrypted Libre 2
    /// dump with its UID and patchInfo (docs/protocols/libre2-fram.md §Test vectors gives the
    /// ready state and sensor age each holds once deciphered).
    @Suite(bumbleRequired) struct BubbleInteropTests {
        static let config = "[[device]]\ntype = \"bubble\"\nlabel = \"libre\"\n"

        /// Ends the run once a live reading is in and the rig has logged the FRAM it came from.
        static func liveReading(_ run: VigilRun) -> Bool {
            let live = run.glucoseValues().filter { $0.trend != nil }.count
            return live >= 1 && run.rigRecords.contains { $0.string("sent") == "fram" }
        }

        @Test(arguments: [([String](), 4993), (["--libre2", "example"], 10320), (["--libre2", "example2"], 3170)])
        func readsTheSensorItCarries(options: [String], ageMinutes: Int) throws {
            let rig = try Rig.launch("bubble.py", arguments: ["--interval-s", "3"] + options)
            defer { rig.stop() }
            let state = try StateDirectory()
            let run = try VigilRun(rig: rig, state: state, configFile: try state.writeConfig(Self.config), seconds: 6,
                                   until: Self.liveReading)
            try run.expectCleanExit()

            let commands = run.rigRecords.filter { $0.string("received") == "command" }.compactMap { $0.string("hex") }
            #expect(commands.contains { $0.hasPrefix("00") }, "vigil never sent the start command\n\(run.diagnostics)")
            #expect(commands.contains { $0.hasPrefix("02") }, "vigil never asked for data\n\(run.diagnostics)")
            #expect(run.events(named: "malformed-value").isEmpty, "\(run.diagnostics)")
            let infos = run.events(named: "info")
            #expect(infos.contains { $0.double("sensorAgeSeconds") == Double(ageMinutes * 60) },
                    "no sensor age of \(ageMinutes) min in \(infos)\n\(run.diagnostics)")
            #expect(infos.contains { $0.string("sensorState") == "ready" }, "\(infos)")
            #expect(infos.contains { $0.string("firmware") == "2.6" }, "\(infos)")
            let live = run.glucoseValues().filter { $0.trend != nil }
            #expect(!live.isEmpty, "no live glucose\n\(run.diagnostics)")
            #expect(live.allSatisfy { $0.sensorTime != nil }, "\(live)")
        }
    }
}
