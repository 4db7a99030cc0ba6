import Foundation
import History
import Readings
import Testing

/// A tmpfs mounted at a fresh directory for a test's length: a real small disk to fill, or a
/// real read-only one (tests run as root, so a chmod would not stop a write).
final class TemporaryMount {
    let path: String

    /// Whether this process may mount (root with CAP_SYS_ADMIN); probed once.
    static let permitted: Bool = {
        guard let probe = try? TemporaryMount(options: "size=64k") else { return false }
        return probe.mounted
    }()

    private(set) var mounted = false

    init(options: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-fault-mount-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        mounted = Self.tool("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]) == 0
    }

    deinit {
        if mounted { _ = Self.tool("/bin/umount", [path]) }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `mount -o remount,OPTIONS`; true when it worked.
    func remount(_ options: String) -> Bool { Self.tool("/bin/mount", ["-o", "remount,\(options)", path]) == 0 }

    /// Writes zeros to `name` until the file system refuses (ENOSPC); the bytes written.
    func fill(_ name: String) -> Int {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while true {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            total += n
        }
        // Single pages too, so not even a 4 KiB WAL frame fits.
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, 512) }) > 0 { total += 512 }
        return total
    }

    static func tool(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension Interop {
    /// Storage failing under the real `vigil run` with the Bumble heart-rate rig notifying,
    /// one test per kind of failure: the history locked by another process, a state file or
    /// the bonds that cannot be saved, a history that cannot be opened (and one slow to open),
    /// a corrupt history at start. Each raises fault:storage-failing on `--events-json` and
    /// says why on stderr; readings keep flowing to the alarms; nothing stored is lost; and the
    /// fault clears when writing works again (except after corruption, which waits for a
    /// person). The policy's timing (retries, back-off, the memory bound) is tested on the
    /// virtual clock in AppTests/Supervisor; a full disk (max_page_count) and a read-only
    /// history (PRAGMA query_only) are in HistoryStoreTests.
    @Suite(bumbleRequired) struct FaultStorageInteropTests {
        static func isAlarm(_ change: String) -> (JSONObject) -> Bool {
            { $0.string("event") == "alarm" && $0.string("alarm") == "fault:storage-failing" && $0.string("change") == change }
        }

        static func heartRateEvents(_ events: [JSONObject]) -> [JSONObject] {
            events.filter { $0.string("event") == "reading" && $0.string("kind") == "heart-rate" }
        }

        static func storedHeartRates(_ database: String) throws -> [RecordedReading] {
            let store = try HistoryStore.open(path: database, bootID: "fault-check")
            #expect(try store.check(full: true) == "ok")
            return Array(store.readings(HistoryQuery(kind: .heartRate)))
        }

        /// `vigil run` against the rig with its configuration in `configDirectory` (kept apart
        /// from the state directory under test).
        static func start(_ rig: Rig, stateDirectory: String, configDirectory: StateDirectory, seconds: Int, pair: Bool = false,
                          environment: [String: String]? = nil, arguments: [String] = [], standardError: FileHandle? = nil) throws -> BackgroundVigil {
            let name = try #require(try rig.info().string("name"))
            let config = try configDirectory.writeConfig("[[device]]\ntype = \"heart-rate\"\nname = \"\(name)\"\npair = \(pair)\n\n[face]\nbackend = \"none\"\n")
            return try BackgroundVigil(["run", "--hci", "tcp:127.0.0.1:\(rig.port)", "--config", config.path, "--state-dir", stateDirectory,
                                        "--events-json", "--log-level", "info", "--seconds", "\(seconds)"] + arguments, environment: environment,
                                       standardError: standardError)
        }

        /// Another process holds the history's write lock (a `sqlite3` shell left inside a
        /// transaction): every commit fails with SQLITE_BUSY while the state directory beside
        /// it saves fine. The fault is raised and stays raised: the alarm state saved because
        /// of it, which works, must not clear it (one storage fault covers every write, and it
        /// used to follow whichever write came last). The lock goes, the rows that waited are
        /// committed, and only then the fault clears.
        @Test func aHistoryLockedByAnotherProcessKeepsTheFaultWhileTheStateFilesSave() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60)
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")

            let locker = try HistoryLocker(database: database)

            let raised = vigil.wait(upTo: .seconds(10)) { vigil.events.contains(where: Self.isAlarm("raised")) }
            try #require(raised, "no storage fault while the history is locked\n\(vigil.summary)")
            #expect(vigil.waitForLog("rows kept in memory"), "\(vigil.summary)")
            // The alarm state, with the fault in it, was saved fine beside the locked history.
            let alarmState = state.url.appendingPathComponent("alarm-state")
            #expect(vigil.wait(upTo: .seconds(5)) {
                (try? String(contentsOf: alarmState, encoding: .utf8))?.contains("fault:storage-failing") == true
            }, "the alarm state was not saved with the fault\n\(vigil.summary)")
            // More readings, each turn's commit refused: still raised.
            let duringFault = Self.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(15)) { Self.heartRateEvents(vigil.events).count >= duringFault + 5 }, "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Self.isAlarm("cleared")), "a saved state file hid the locked history\n\(vigil.summary)")

            try locker.release()
            let cleared = vigil.wait(upTo: .seconds(10)) { vigil.events.contains(where: Self.isAlarm("cleared")) }
            #expect(cleared, "the fault did not clear once the lock went\n\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            let reported = Self.heartRateEvents(vigil.events)
            #expect(try Self.storedHeartRates(database).count == reported.count)
        }

        /// The remembered-transmitters file cannot be saved (a directory stands where it goes)
        /// while the history commits fine beside it: the fault is raised when the address is
        /// first remembered and stays raised through every good commit; the save is tried
        /// again (every second here, `--retry-interval`; 10 s in service), and once the way is
        /// clear the address is saved and the fault clears. The retry's timing is in
        /// SupervisorStorageTests, on the virtual clock.
        @Test func aStateFileThatCannotBeSavedIsTriedAgainAndKeepsTheFaultUntilItIs() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let transmitters = state.url.appendingPathComponent("transmitters").path
            try FileManager.default.createDirectory(atPath: transmitters, withIntermediateDirectories: false)
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                       arguments: ["--retry-interval", "1"])
            #expect(vigil.wait(upTo: .seconds(20)) { vigil.events.contains { $0.string("event") == "remembered" } }, "\(vigil.summary)")
            let raised = vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Self.isAlarm("raised")) }
            try #require(raised, "no storage fault when the address could not be saved\n\(vigil.summary)")
            #expect(vigil.waitForLog("cannot save remembered transmitters"), "\(vigil.summary)")
            // Readings go on being committed for a while: the fault stays.
            let duringFault = Self.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Self.heartRateEvents(vigil.events).count >= duringFault + 30 }, "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Self.isAlarm("cleared")), "good commits hid the unsaved address\n\(vigil.summary)")

            try FileManager.default.removeItem(atPath: transmitters)
            let cleared = vigil.wait(upTo: .seconds(15)) { vigil.events.contains(where: Self.isAlarm("cleared")) }
            #expect(cleared, "the fault did not clear once the address could be saved\n\(vigil.summary)")
            let address = try #require(vigil.events.first { $0.string("event") == "remembered" }?.string("address"))
            let saved = (try? String(contentsOfFile: transmitters, encoding: .utf8)) ?? ""
            #expect(saved.contains(address), "the address \(address) was not saved on the retry: \(saved)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            let reported = Self.heartRateEvents(vigil.events)
            #expect(try Self.storedHeartRates(state.url.appendingPathComponent("history.sqlite").path).count == reported.count)
        }

        /// The bonds cannot be saved (a directory stands where `bonds` goes) when the strap
        /// pairs: the fault is raised, since a bond lost at the next restart means pairing again
        /// by hand; the save is tried again (every second here, `--retry-interval`), and once
        /// it can be done the bond is saved and the fault clears. Readings flow throughout.
        @Test func bondsThatCannotBeSavedAreTriedAgainAndKeepTheFaultUntilTheyAre() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10", "--require-encryption"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let bonds = state.url.appendingPathComponent("bonds").path
            try FileManager.default.createDirectory(atPath: bonds, withIntermediateDirectories: false)
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60, pair: true,
                                       arguments: ["--retry-interval", "1"])
            #expect(vigil.wait(upTo: .seconds(20)) { vigil.events.contains { $0.string("event") == "paired" } }, "\(vigil.summary)")
            let raised = vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Self.isAlarm("raised")) }
            try #require(raised, "no storage fault when the bond could not be saved\n\(vigil.summary)")
            #expect(vigil.waitForLog("cannot save bonds"), "\(vigil.summary)")
            let duringFault = Self.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Self.heartRateEvents(vigil.events).count >= duringFault + 30 }, "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Self.isAlarm("cleared")), "good commits hid the unsaved bond\n\(vigil.summary)")

            try FileManager.default.removeItem(atPath: bonds)
            let cleared = vigil.wait(upTo: .seconds(15)) { vigil.events.contains(where: Self.isAlarm("cleared")) }
            #expect(cleared, "the fault did not clear once the bond could be saved\n\(vigil.summary)")
            let address = try #require(vigil.events.first { $0.string("event") == "paired" }?.string("address"))
            let saved = (try? String(contentsOfFile: bonds, encoding: .utf8)) ?? ""
            #expect(saved.contains(address), "the bond for \(address) was not saved on the retry: \(saved)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
        }

        /// The state directory cannot be made (under /proc, where nobody may make one): vigil
        /// runs anyway, says why, sounds the storage fault from the start, and the readings
        /// reach the alarms. It used to exit 64 before the face was opened, and systemd would
        /// restart it every few seconds with no sound at all.
        @Test func aStateDirectoryThatCannotBeMadeSoundsTheFaultAndTheApplianceRuns() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: "/proc/vigil-state", configDirectory: configDirectory, seconds: 30)
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")
            #expect(vigil.events.contains(where: Self.isAlarm("raised")), "\(vigil.summary)")
            #expect(vigil.waitForLog("cannot use the state directory /proc/vigil-state"), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
        }

        /// A static-address file that cannot be read (a directory stands there) is left as it
        /// is: the run goes on with an address of its own, says so, and sounds the storage
        /// fault for the run; the file is not replaced (it may hold the address every bond
        /// was made with).
        @Test func aStaticAddressThatCannotBeReadIsLeftForAPerson() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let file = state.url.appendingPathComponent("static-address").path
            try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 30)
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 5 }, "\(vigil.summary)")
            #expect(vigil.waitForLog("cannot read \(file)"), "\(vigil.summary)")
            // Every bond made with the old address is useless to this run: the fault says so.
            #expect(vigil.events.contains(where: Self.isAlarm("raised")), "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Self.isAlarm("cleared")), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) && isDirectory.boolValue, "the file was replaced")
        }

        /// A btsnoop log that cannot be written (its folder is missing) is a troubleshooting aid
        /// lost, not a reason to stop: logged, and the appliance runs without it.
        @Test func aBtsnoopLogThatCannotBeWrittenIsLoggedAndTheApplianceRuns() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let configDirectory = try StateDirectory()
            let name = try #require(try rig.info().string("name"))
            let config = try configDirectory.writeConfig("[[device]]\ntype = \"heart-rate\"\nname = \"\(name)\"\n\n[face]\nbackend = \"none\"\n")
            let snoop = state.url.appendingPathComponent("missing/hci.btsnoop").path
            let vigil = try BackgroundVigil(["run", "--hci", "tcp:127.0.0.1:\(rig.port)", "--config", config.path, "--state-dir", state.url.path,
                                             "--btsnoop-log", snoop, "--events-json", "--log-level", "info", "--seconds", "30"])
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 5 }, "\(vigil.summary)")
            #expect(vigil.waitForLog("btsnoop log \(snoop)"), "\(vigil.summary)")
            #expect(vigil.waitForLog("running without it"), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
        }

        /// A history that is not a database at start: moved aside (kept for a person, byte for
        /// byte), a fresh one started and written, and the fault raised and kept raised for the
        /// whole run although writing works: months of readings were set aside.
        @Test func aCorruptHistoryAtStartIsMovedAsideAndTheFaultStaysRaised() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let garbage = Array(repeating: Array("this is not an SQLite database\n".utf8), count: 200).flatMap { $0 }
            let database = state.url.appendingPathComponent("history.sqlite")
            try Data(garbage).write(to: database)
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60)
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")

            #expect(vigil.stderrText.contains("history: \(database.path) was corrupt"), "\(vigil.summary)")
            let events = vigil.events
            #expect(events.contains(where: Self.isAlarm("raised")), "\(vigil.summary)")
            #expect(!events.contains(where: Self.isAlarm("cleared")), "a good write hid the corruption\n\(vigil.summary)")
            let aside = try FileManager.default.contentsOfDirectory(atPath: state.url.path).filter { $0.hasPrefix("history.sqlite.corrupt-") }
            #expect(aside.count == 1, "\(aside)")
            if let name = aside.first {
                #expect(try Data(contentsOf: state.url.appendingPathComponent(name)) == Data(garbage), "the evidence was changed")
            }
            let reported = Self.heartRateEvents(events)
            #expect(reported.count >= 10, "\(vigil.summary)")
            #expect(try Self.storedHeartRates(database.path).count == reported.count)
        }

        /// The state directory is writable but the history is not (a directory stands where
        /// its file goes): the remembered address is saved fine, and that must not clear the
        /// fault while the readings have nowhere to go. Once the way is clear, the next attempt
        /// (attempts back off from a second here, `--retry-interval`) opens the history, writes
        /// what waited, and only then the fault clears. The back-off is in SupervisorHistoryTests.
        @Test func otherStateSavingFineDoesNotClearTheFaultOfAHistoryNotOpen() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "5"])
            defer { rig.stop() }
            let (state, database) = try Self.historyBlockedByADirectory()
            let configDirectory = try StateDirectory()
            let vigil = try Self.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                       arguments: ["--retry-interval", "1"])
            #expect(vigil.wait(upTo: .seconds(20)) { Self.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")
            #expect(vigil.events.contains { $0.string("event") == "remembered" }, "the address was not remembered\n\(vigil.summary)")
            #expect(FileManager.default.fileExists(atPath: state.url.appendingPathComponent("transmitters").path),
                    "the remembered address was not saved beside the history\n\(vigil.summary)")
            #expect(vigil.events.contains(where: Self.isAlarm("raised")), "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Self.isAlarm("cleared")), "a saved address hid the history's fault\n\(vigil.summary)")

            try FileManager.default.removeItem(atPath: database)
            #expect(vigil.waitForLog("history: opened \(database) at attempt", upTo: .seconds(20)), "\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Self.isAlarm("cleared")) }, "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            let reported = Self.heartRateEvents(vigil.events)
            #expect(try Self.storedHeartRates(database).count == reported.count)
        }

        /// Opening a history again checks the whole file: seconds on a Pi with a large one.
        /// Each attempt runs on its own thread, so readings keep reaching the alarms while it
        /// does (`--history-open-delay` holds each attempt 6 s, as a slow card would). Run in
        /// place, the loop would stop for those seconds and systemd's watchdog with it.
        @Test func aSlowReopeningDoesNotHoldTheLoop() throws {
            let reopening = try SlowReopening(delay: 12, seconds: 60)
            defer { reopening.rig.stop() }
            let (vigil, database) = (reopening.vigil, reopening.database)
            let whileOpening = Self.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(6)) { Self.heartRateEvents(vigil.events).count >= whileOpening + 10 },
                    "no readings while the history was being opened\n\(vigil.summary)")
            #expect(!vigil.stderrText.contains("at attempt 2"), "the attempt ended before its delay\n\(vigil.summary)")
            #expect(vigil.waitForLog("history: opened \(database) at attempt 2", upTo: .seconds(15)), "\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Self.isAlarm("cleared")) }, "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            #expect(try Self.storedHeartRates(database).count == Self.heartRateEvents(vigil.events).count)
        }

        /// SIGTERM while an attempt runs: the exit waits for it (up to 10 s) and writes what
        /// waited in memory, instead of losing it.
        @Test func anExitDuringAReopeningWaitsForItAndWritesWhatWaited() throws {
            let reopening = try SlowReopening(delay: 8, seconds: 60)
            defer { reopening.rig.stop() }
            let (vigil, database) = (reopening.vigil, reopening.database)
            #expect(vigil.wait(upTo: .seconds(5)) { Self.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")
            #expect(!vigil.stderrText.contains("at attempt 2"), "the attempt ended before the exit\n\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            #expect(vigil.stderrText.contains("history: created \(database)"), "\(vigil.summary)")
            #expect(vigil.stderrText.contains("history: opened \(database) at exit;"), "\(vigil.summary)")
            #expect(!vigil.stderrText.contains("lost at exit"), "\(vigil.summary)")
            let reported = Self.heartRateEvents(vigil.events)
            #expect(reported.count >= 10)
            #expect(try Self.storedHeartRates(database).count == reported.count)
        }

        /// A state directory whose history path is taken by a directory: the history cannot be
        /// opened until the directory goes.
        static func historyBlockedByADirectory() throws -> (StateDirectory, String) {
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
            return (state, database)
        }

        /// `vigil run` whose history could not be opened at start, caught in its second attempt:
        /// the way was cleared, and the attempt (held `delay` seconds, as on a slow card, and
        /// begun 2 s after the failure, `--retry-interval`) has begun.
        struct SlowReopening {
            let rig: Rig
            let state: StateDirectory
            let configDirectory: StateDirectory
            let database: String
            let vigil: BackgroundVigil

            init(delay: Int, seconds: Int) throws {
                rig = try Rig.launch(arguments: ["--rate-hz", "5"])
                (state, database) = try FaultStorageInteropTests.historyBlockedByADirectory()
                configDirectory = try StateDirectory()
                let vigil = try FaultStorageInteropTests.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: seconds,
                                                               arguments: ["--history-open-delay", "\(delay)", "--retry-interval", "2"])
                self.vigil = vigil
                #expect(vigil.waitForLog("history: cannot open \(database)"), "\(vigil.summary)")
                try FileManager.default.removeItem(atPath: database)
                #expect(vigil.waitForLog("history: opening \(database) again (attempt 2)", upTo: .seconds(20)), "\(vigil.summary)")
            }
        }
    }
}
