import Clocks
import Foundation
import History
import Readings
import Testing

extension Interop {
    /// Storage faults that writing working again does not undo, under the real
    /// `vigil run` with the Bumble heart-rate rig: pruning that fails while commits work (the
    /// size cap not kept), readings dropped from memory while the history was locked, and
    /// state files there at start that cannot be read or make no sense. Each sounds the
    /// storage fault; a prune that works again clears it, a loss keeps it for the run.
    @Suite(bumbleRequired) struct FaultStorageLossInteropTests {
        typealias Storage = FaultStorageInteropTests

        /// Runs `sql` on the history with Python's sqlite3 (another process, as a person with
        /// `sqlite3` would).
        static func execute(_ sql: String, on database: String) throws {
            let process = Process()
            process.executableURL = InteropEnvironment.pythonPath
            process.arguments = ["-c", "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], timeout=10)\nc.executescript(sys.argv[2])\nc.close()",
                                 database, sql]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "python sqlite3 failed on: \(sql)")
        }

        static func storedGlucose(_ database: String) throws -> Int {
            let store = try HistoryStore.open(path: database, bootID: "loss-check")
            return Array(store.readings(HistoryQuery(kind: .glucose))).count
        }

        /// A history holding glucose 400 days old (past its 365) and a trigger that refuses
        /// every delete: each prune fails while inserts commit fine. The fault is raised and
        /// stays through good commits, the prune is tried again (said each time; every second
        /// here, `--retry-interval`),
        /// and once the trigger goes the next prune deletes the old rows and clears the fault.
        @Test func aPruneThatFailsSoundsTheFaultUntilAPruneWorks() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let now = WallClockTime(microsecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1_000_000))
            do {
                let store = try HistoryStore.open(path: database, bootID: "old")
                store.append((0..<3).map { i in
                    RecordedReading(device: "dexcom-811234", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 100), trend: .flat),
                                    wallTime: now - .seconds(400 * 86_400) + .seconds(Int64(i) * 300), sensorStamp: SensorStamp(run: "", count: Int64(i) * 300))
                })
                guard case .committed(3, _) = store.commit() else { Issue.record("the old rows were not written"); return }
                try store.checkpoint()
            }
            try Self.execute("CREATE TRIGGER refuse_deletes BEFORE DELETE ON readings BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
                             on: database)
            let configDirectory = try StateDirectory()
            let vigil = try Storage.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                          arguments: ["--retry-interval", "1"])
            let raised = vigil.wait(upTo: .seconds(20)) { vigil.events.contains(where: Storage.isAlarm("raised")) }
            try #require(raised, "no storage fault while pruning fails\n\(vigil.summary)")
            #expect(vigil.waitForLog("history: pruning failed"), "\(vigil.summary)")
            #expect(vigil.stderrText.contains("refused by the test"), "\(vigil.summary)")
            // Commits work meanwhile: readings are stored, and the fault stays through a retry.
            #expect(vigil.wait(upTo: .seconds(15)) {
                vigil.stderrText.components(separatedBy: "history: pruning failed").count - 1 >= 2
            }, "the prune was not tried again\n\(vigil.summary)")
            #expect(!vigil.events.contains(where: Storage.isAlarm("cleared")), "good commits hid the failing prune\n\(vigil.summary)")

            try Self.execute("DROP TRIGGER refuse_deletes;", on: database)
            let cleared = vigil.wait(upTo: .seconds(15)) { vigil.events.contains(where: Storage.isAlarm("cleared")) }
            #expect(cleared, "the fault did not clear once pruning worked\n\(vigil.summary)")
            #expect(vigil.waitForLog("history: pruning works again"), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            #expect(try Self.storedGlucose(database) == 0, "the rows past their retention were not pruned")
            #expect(try Storage.storedHeartRates(database).count == Storage.heartRateEvents(vigil.events).count)
        }

        /// The history is locked long enough that the readings waiting in memory pass their
        /// bound (20 rows here, `--history-rows-in-memory`; 50,000 in service): the oldest are
        /// dropped. The lock goes and every later commit works, but the fault stays raised:
        /// those readings are gone, and the good commits must not hide it.
        @Test func readingsDroppedWhileTheHistoryWasLockedKeepTheFaultForTheRun() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let configDirectory = try StateDirectory()
            let vigil = try Storage.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                          arguments: ["--history-rows-in-memory", "20"])
            #expect(vigil.wait(upTo: .seconds(20)) { Storage.heartRateEvents(vigil.events).count >= 10 }, "\(vigil.summary)")

            let locker = try HistoryLocker(database: database)
            #expect(vigil.wait(upTo: .seconds(10)) { vigil.events.contains(where: Storage.isAlarm("raised")) }, "\(vigil.summary)")
            #expect(vigil.waitForLog("older readings did not fit in memory while it could not be written, and are lost"), "\(vigil.summary)")
            try locker.release()
            // Commits work again: the rows that waited are written...
            let afterLock = Storage.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Storage.heartRateEvents(vigil.events).count >= afterLock + 30 }, "\(vigil.summary)")
            // ...and the fault stays.
            #expect(!vigil.events.contains(where: Storage.isAlarm("cleared")), "good commits hid the dropped readings\n\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            let reported = Storage.heartRateEvents(vigil.events).count
            let stored = try Storage.storedHeartRates(database).count
            #expect(stored < reported, "nothing was dropped: stored \(stored) of \(reported)")
            #expect(stored >= afterLock, "stored \(stored), \(afterLock) reported by the time the lock went")
        }

        /// State files that are there but cannot be read (the bonds: a symlink that loops) or
        /// make no sense (the alarm state and the remembered transmitters: text vigil never
        /// wrote): each is moved aside, byte for byte, for a person; the run starts without
        /// it (the strap is searched for and remembered anew); and the storage fault is raised
        /// and stays for the run, though every save since works. The next run, with the files
        /// out of the way, starts without a fault.
        @Test func stateFilesThatCannotBeReadAreSetAsideAndSoundTheFaultForTheRun() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let directory = state.url.path
            try FileManager.default.createSymbolicLink(atPath: directory + "/bonds", withDestinationPath: "bonds")
            let garbage = Data("this is not what vigil writes\n".utf8)
            try garbage.write(to: state.url.appendingPathComponent("alarm-state"))
            try garbage.write(to: state.url.appendingPathComponent("transmitters"))
            let configDirectory = try StateDirectory()
            let rigStart = rig.lineCount
            let vigil = try Storage.start(rig, stateDirectory: directory, configDirectory: configDirectory, seconds: 60)
            let raised = vigil.wait(upTo: .seconds(20)) { vigil.events.contains(where: Storage.isAlarm("raised")) }
            try #require(raised, "no storage fault for unreadable state files\n\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(20)) { vigil.events.contains { $0.string("event") == "remembered" } }, "\(vigil.summary)")
            let afterRemembered = Storage.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Storage.heartRateEvents(vigil.events).count >= afterRemembered + 30 }, "\(vigil.summary)")
            #expect(!vigil.events.contains(where: Storage.isAlarm("cleared")), "good saves hid the files set aside\n\(vigil.summary)")
            for (name, lost) in [("bonds", "devices will need to pair again"), ("alarm-state", "alarms and snoozes start afresh"),
                                 ("transmitters", "transmitters will be searched for again")] {
                #expect(vigil.stderrText.contains("\(directory)/\(name): "), "\(name) not said\n\(vigil.summary)")
                #expect(vigil.stderrText.contains(lost), "\(name): what is lost not said\n\(vigil.summary)")
            }
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")

            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            for name in ["bonds", "alarm-state", "transmitters"] {
                let aside = names.filter { $0.hasPrefix("\(name).unreadable-") }
                #expect(aside.count == 1, "\(name) set aside as \(aside)")
                guard let first = aside.first else { continue }
                let path = directory + "/" + first
                if name == "bonds" {
                    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == "bonds", "the link was not kept as it was")
                } else {
                    #expect(FileManager.default.contents(atPath: path) == garbage, "\(name): the evidence was changed")
                }
            }
            // Saved anew beside what was set aside.
            let address = try #require(vigil.events.first { $0.string("event") == "remembered" }?.string("address"))
            #expect((try? String(contentsOfFile: directory + "/transmitters", encoding: .utf8))?.contains(address) == true)

            // The strap must be free (and advertising) again before the next run.
            let freed = try rig.waitFor(since: rigStart, timeout: .seconds(5)) { $0.string("event") == "disconnected" }
            #expect(freed != nil, "the rig never saw the first run's link go away")
            let again = try Storage.start(rig, stateDirectory: directory, configDirectory: configDirectory, seconds: 60)
            #expect(again.wait(upTo: .seconds(20)) { Storage.heartRateEvents(again.events).count >= 10 }, "\(again.summary)")
            again.send(SIGTERM)
            #expect(!again.waitForExit().timedOut, "\(again.summary)")
            #expect(!again.events.contains(where: Storage.isAlarm("raised")), "a fault in the run after\n\(again.summary)")
        }
    }
}
