import Foundation
import Platform
import Testing

extension Interop {
    /// The button's double press under the real `vigil run` (the console face's `d` key on a
    /// pseudo-terminal), onto a real mount (a tmpfs: root only, skipped elsewhere), from a
    /// history of 100,000 glucose and 300,000 heart-rate rows while the Bumble heart-rate rig
    /// notifies at 10 Hz. The bundle is written on its own thread: readings keep arriving and
    /// are handled while it is written, and SIGTERM mid-bundle ends Vigil promptly with no
    /// partial folder left on the stick.
    ///
    /// Against the debug build, not `VIGIL_BINARY`: the release build writes these 400,000 rows
    /// in about 0.7 s, too short a bundle to see readings arrive during it (and to land SIGTERM
    /// in it for sure), and a history large enough for it would take the test longer to make
    /// than the whole suite takes now. How the loop and the bundle's thread share the work is
    /// the same in both builds.
    @Suite(bumbleRequired) struct RunUSBExportInteropTests {
        /// The rig, the history, the stick, a terminal for the keys, and `vigil run` on them.
        struct Setup {
            let rig: Rig
            let fixture: HistoryFixture
            let stick: TemporaryMount
            let terminal: PseudoTerminal
            let vigil: BackgroundVigil

            init() throws {
                rig = try Rig.launch(arguments: ["--rate-hz", "10"])
                fixture = try HistoryFixture(glucose: 100_000, heartRate: 300_000)
                stick = try TemporaryMount(options: "size=512m")
                try #require(stick.mounted)
                terminal = try PseudoTerminal.openPair()
                let name = try #require(try rig.info().string("name"))
                let config = fixture.path("vigil.conf")
                try """
                    [storage]
                    state-dir = "\(fixture.stateDirectory)"

                    [export]
                    usb = "\(stick.path)"

                    [face]
                    backend = "console"

                    [[device]]
                    type = "heart-rate"
                    name = "\(name)"
                    """.write(toFile: config, atomically: true, encoding: .utf8)
                let keys = try #require(FileHandle(forUpdatingAtPath: terminal.secondaryPath))
                vigil = try BackgroundVigil(["run", "--hci", "tcp:127.0.0.1:\(rig.port)", "--config", config, "--events-json",
                                             "--log-level", "info", "--seconds", "120"], standardInput: keys,
                                            binary: try InteropEnvironment.vigilBinary(dynamic: true))
            }

            var heartRates: Int { vigil.events.count { $0.string("event") == "reading" && $0.string("kind") == "heart-rate" } }

            /// What is on the stick (names at its top).
            func stickEntries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: stick.path).sorted() }

            /// The double press: `d` on the console face's keyboard.
            func doublePress() throws { try terminal.primary.write(Array("d".utf8)) }
        }

        @Test(.enabled(if: TemporaryMount.permitted, "mounting a tmpfs is not permitted here: no stick can be made"))
        func readingsKeepArrivingWhileTheBundleIsWritten() throws {
            let setup = try Setup()
            defer { setup.rig.stop() }
            let vigil = setup.vigil
            #expect(vigil.wait(upTo: .seconds(20)) { setup.heartRates >= 10 }, "\(vigil.summary)")
            try setup.doublePress()
            try #require(vigil.waitForLog("USB export: writing a bundle to \(setup.stick.path)"), "\(vigil.summary)")
            // Every 20 ms until the bundle is done: when did the count of heart rates go up?
            // A loop that stood still while writing would show them all at once at the end
            // (they wait in the socket), within a moment of "wrote".
            let started = ContinuousClock.now
            var increases: [ContinuousClock.Instant] = []
            var seen = setup.heartRates
            while !vigil.stderrText.contains("USB export: wrote"), ContinuousClock.now - started < .seconds(180), vigil.process.isRunning {
                let count = setup.heartRates
                if count > seen { increases.append(ContinuousClock.now) }
                seen = count
                Thread.sleep(forTimeInterval: 0.02)
            }
            let done = ContinuousClock.now
            try #require(vigil.stderrText.contains("USB export: wrote"), "\(vigil.summary)")
            let took = done - started
            let whileWriting = increases.filter { done - $0 > .milliseconds(500) }.count
            // Only a bundle that takes a while can show anything: 400,000 rows take seconds.
            #expect(took >= .milliseconds(1500), "the bundle took only \(took): too quick to tell")
            #expect(whileWriting >= 5, """
                heart rates arrived at only \(whileWriting) moments in the \(took) the bundle took, before its \
                last 0.5 s: the loop stood still
                \(vigil.summary)
                """)
            print("USB export of 400,000 rows took \(took); heart rates arrived at \(increases.count) moments, \(whileWriting) before its last 0.5 s")

            let folders = try setup.stickEntries()
            #expect(folders.count == 1 && folders.first?.hasPrefix("vigil-") == true, "\(folders)")
            if let folder = folders.first {
                // Lines end in CRLF (RFC 4180): count the line feeds, less the header's.
                let csv = try Data(contentsOf: URL(fileURLWithPath: setup.stick.path + "/" + folder + "/readings.csv"))
                let rows = csv.count { $0 == 0x0A } - 1
                #expect(rows >= 400_000, "\(rows) rows in readings.csv")
            }
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
        }

        @Test(.enabled(if: TemporaryMount.permitted, "mounting a tmpfs is not permitted here: no stick can be made"))
        func sigtermMidBundleStopsItPromptlyAndLeavesNothingOnTheStick() throws {
            let setup = try Setup()
            defer { setup.rig.stop() }
            let vigil = setup.vigil
            #expect(vigil.wait(upTo: .seconds(20)) { setup.heartRates >= 5 }, "\(vigil.summary)")
            try setup.doublePress()
            try #require(vigil.waitForLog("USB export: writing a bundle to \(setup.stick.path)"), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit(upTo: .seconds(10))
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            #expect(vigil.stderrText.contains("was stopped part way: nothing was written"), "\(vigil.summary)")
            let left = try setup.stickEntries()
            #expect(left == [], "left on the stick: \(left)")
        }
    }
}
