import Clocks
import Foundation
import History
import Readings
import Testing

extension Interop {
    /// Issue 7, the wall clock set while vigil runs (a board without a real-time clock boots in
    /// 1970 and NTP sets it minutes later), stepped under the real `vigil run` with a preloaded
    /// clock (FakeWallClock) while the Bumble heart-rate rig notifies.
    @Suite(bumbleRequired, fakeWallClockRequired) struct ClockSetInteropTests {
        typealias Storage = FaultStorageInteropTests

        /// A board without a real-time clock starts near the epoch.
        static let unset = Date(timeIntervalSince1970: 86_400)

        static func isClockNotSet(_ change: String) -> (JSONObject) -> Bool {
            { $0.string("event") == "alarm" && $0.string("alarm") == "fault:clock-not-set" && $0.string("change") == change }
        }

        /// The clock is set while another process holds the history's write lock: the re-date
        /// of the 1970 rows fails, is said, and keeps the storage fault raised; once the lock
        /// goes it is tried again and succeeds, the fault clears, and every stored reading
        /// carries a date on the set clock. Before, a failed re-date was only logged: those
        /// rows kept 1970 dates, and retention would have deleted them as 56 years old.
        @Test func aReDateThatFailsIsTriedAgainUntilItWorks() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let configDirectory = try StateDirectory()
            let clock = try FakeWallClock(directory: configDirectory.url, start: Self.unset)
            let vigil = try Storage.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                          environment: clock.environment)
            // The fake clock took: vigil believes it is 1970 and says its clock is not set.
            let unsetSaid = vigil.wait(upTo: .seconds(10)) { vigil.events.contains(where: Self.isClockNotSet("raised")) }
            try #require(unsetSaid, "vigil did not see the 1970 clock (is it linked statically?)\n\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(20)) { Storage.heartRateEvents(vigil.events).count >= 20 }, "\(vigil.summary)")

            let locker = try HistoryLocker(database: database)
            #expect(vigil.waitForLog("rows kept in memory"), "\(vigil.summary)")
            let setAt = WallClockTime(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))
            try clock.set(Date())
            #expect(vigil.waitForLog("re-dating after the clock was set failed"), "\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Self.isClockNotSet("cleared")) }, "\(vigil.summary)")

            try locker.release()
            #expect(vigil.waitForLog("rows dated before the clock was set were re-dated", upTo: .seconds(15)), "\(vigil.summary)")
            let cleared = vigil.wait(upTo: .seconds(5)) { vigil.events.contains(where: Storage.isAlarm("cleared")) }
            #expect(cleared, "the storage fault did not clear once the re-date worked\n\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")

            let stored = try Storage.storedHeartRates(database)
            #expect(stored.count == Storage.heartRateEvents(vigil.events).count)
            let stale = stored.filter { $0.wallTime < WallClockTime(secondsSinceEpoch: 1_735_689_600) }  // 2025: a set clock
            #expect(stale.isEmpty, "\(stale.count) of \(stored.count) readings kept a 1970 date; first \(String(describing: stale.first))")
            // Re-dated by the step: the earliest lands within the minute before the clock was set.
            let earliest = try #require(stored.map(\.wallTime).min())
            #expect(earliest > setAt - .seconds(120) && earliest < setAt, "earliest \(earliest), clock set at \(setAt)")
        }

        /// A set clock jumps a day ahead (a bad time source) and then back: each step is said,
        /// the shift is saved for the next run (`clock-shift`: about 86400, then 0) so retention
        /// never ages a day of readings by the bad clock, no fault is raised (the readings
        /// are dated as the clock says, and the clock is the user's to fix), and every
        /// reading reported is stored, none pruned.
        @Test func aDayAheadAndBackIsSaidSavedAndLosesNothing() throws {
            let rig = try Rig.launch(arguments: ["--rate-hz", "10"])
            defer { rig.stop() }
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let shiftFile = state.url.appendingPathComponent("clock-shift")
            let configDirectory = try StateDirectory()
            let clock = try FakeWallClock(directory: configDirectory.url, start: Date())
            let vigil = try Storage.start(rig, stateDirectory: state.url.path, configDirectory: configDirectory, seconds: 60,
                                          environment: clock.environment)
            #expect(vigil.wait(upTo: .seconds(20)) { Storage.heartRateEvents(vigil.events).count >= 20 }, "\(vigil.summary)")
            /// The shift saved for the next run, in whole seconds (within a second of the step).
            func savedShift() -> Int? {
                (try? String(contentsOf: shiftFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .newlines)) }
            }
            /// The steps vigil said, in seconds ("the wall clock stepped by 86400.25 seconds").
            func steps() -> [Double] {
                vigil.stderrText.split(separator: "\n").compactMap { line in
                    line.range(of: "the wall clock stepped by ").flatMap { Double(line[$0.upperBound...].prefix { $0 != " " }) }
                }
            }
            func said(_ seconds: Double) -> Bool { steps().contains { abs($0 - seconds) < 5 } }

            try clock.set(Date().addingTimeInterval(86_400))
            #expect(vigil.wait(upTo: .seconds(10)) { said(86_400) }, "steps said: \(steps())\n\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(5)) { savedShift().map { abs($0 - 86_400) < 5 } == true }, "clock-shift: \(String(describing: savedShift()))")
            let ahead = Storage.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Storage.heartRateEvents(vigil.events).count >= ahead + 20 }, "\(vigil.summary)")

            try clock.set(Date())
            #expect(vigil.wait(upTo: .seconds(10)) { said(-86_400) }, "steps said: \(steps())\n\(vigil.summary)")
            #expect(vigil.wait(upTo: .seconds(5)) { savedShift().map { abs($0) < 5 } == true }, "clock-shift: \(String(describing: savedShift()))")
            let back = Storage.heartRateEvents(vigil.events).count
            #expect(vigil.wait(upTo: .seconds(10)) { Storage.heartRateEvents(vigil.events).count >= back + 20 }, "\(vigil.summary)")

            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")
            #expect(!vigil.events.contains { $0.string("event") == "alarm" && $0.string("change") == "raised" }, "\(vigil.summary)")
            let stored = try Storage.storedHeartRates(database)
            #expect(stored.count == Storage.heartRateEvents(vigil.events).count)
            // A day's worth of them was dated a day ahead: stored as the clock said.
            let now = WallClockTime(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))
            #expect(stored.contains { $0.wallTime > now + .seconds(86_400 - 120) })
        }
    }
}
