import Clocks
import Foundation
import History
import Readings
import Testing

extension Interop {
    /// The wall clock set while vigil runs (a board without a real-time clock boots in
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
        /// goes it is tried again (every second here, `--retry-interval`; the 10 s and the
        /// fault's raising and clearing are in SupervisorClockTests) and succeeds, the fault
        /// clears, and every stored reading
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
                                          environment: clock.environment, arguments: ["--retry-interval", "1"])
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
            let endedAt = WallClockTime(secondsSinceEpoch: Int64(Date().timeIntervalSince1970) + 1)  // vigil ran on this clock
            #expect(stored.count == Storage.heartRateEvents(vigil.events).count)
            let stale = stored.filter { $0.wallTime < WallClockTime(secondsSinceEpoch: 1_735_689_600) }  // 2025: a set clock
            #expect(stale.isEmpty, "\(stale.count) of \(stored.count) readings kept a 1970 date; first \(String(describing: stale.first))")
            // Re-dated by the step: the earliest lands within the minute before the clock was set.
            let earliest = try #require(stored.map(\.wallTime).min())
            #expect(earliest > setAt - .seconds(120) && earliest < setAt, "earliest \(earliest), clock set at \(setAt)")
            // And none twice: the readings dated on the new clock before vigil saw the step were
            // once moved again, 56 years ahead.
            let ahead = stored.filter { $0.wallTime > endedAt }
            #expect(ahead.isEmpty, "\(ahead.count) of \(stored.count) readings dated after the test ended (\(endedAt)): \(ahead)\n\(vigil.summary)")
        }

        /// A glucose meter's records carry the meter's own dates; the board's clock being set
        /// afterwards must not move them. Before, every row received before the step was
        /// shifted with it, so records synced on a board that booted in 1970 were stored 56
        /// years ahead of the meter's dates.
        @Test func aMetersOwnDatesAreNotMovedWhenTheBoardClockIsSet() throws {
            let rig = try Rig.launch("glucose_meter.py", arguments: ["--records", "6"])
            defer { rig.stop() }
            let sent = try #require(try rig.info().objects("records"), "rig info has no records")
            let state = try StateDirectory()
            let database = state.url.appendingPathComponent("history.sqlite").path
            let configDirectory = try StateDirectory()
            let config = try configDirectory.writeConfig("[[device]]\ntype = \"glucose-meter\"\nlabel = \"meter\"\npair = true\n\n[face]\nbackend = \"none\"\n")
            let clock = try FakeWallClock(directory: configDirectory.url, start: Self.unset)
            let vigil = try BackgroundVigil(["run", "--hci", "tcp:127.0.0.1:\(rig.port)", "--config", config.path, "--state-dir", state.url.path,
                                             "--events-json", "--log-level", "info", "--seconds", "60"], environment: clock.environment)
            func meterReadings() -> [JSONObject] {
                vigil.events.filter { $0.string("event") == "reading" && $0.string("kind") == "meter-glucose" }
            }
            let unsetSaid = vigil.wait(upTo: .seconds(10)) { vigil.events.contains(where: Self.isClockNotSet("raised")) }
            try #require(unsetSaid, "vigil did not see the 1970 clock (is it linked statically?)\n\(vigil.summary)")
            try #require(vigil.wait(upTo: .seconds(20)) { meterReadings().count == sent.count }, "\(vigil.summary)")
            // Committed on the unset clock, then the clock is set.
            #expect(vigil.wait(upTo: .seconds(5)) { ((try? Self.storedMeterReadings(database)) ?? []).count == sent.count })
            try clock.set(Date())
            #expect(vigil.waitForLog("rows dated before the clock was set were re-dated"), "\(vigil.summary)")
            vigil.send(SIGTERM)
            let exit = vigil.waitForExit()
            #expect(!exit.timedOut && exit.status == 0, "\(exit)\n\(vigil.summary)")

            // The rig's records are dated in meter local time (plus a time offset on some), and
            // the meter's UTC offset is zero.
            let iso = ISO8601DateFormatter()
            let want = try sent.map { record in
                let local = try #require(record.string("localTime").flatMap { iso.date(from: $0 + "Z") }, "\(record)")
                let offset = Int64(record.int("timeOffsetMin") ?? 0) * 60
                return WallClockTime(secondsSinceEpoch: Int64(local.timeIntervalSince1970) + offset)
            }.sorted()
            let stored = try Self.storedMeterReadings(database).map(\.wallTime).sorted()
            #expect(stored == want, "stored \(stored), the meter's dates \(want)")
        }

        static func storedMeterReadings(_ database: String) throws -> [RecordedReading] {
            let store = try HistoryStore.open(path: database, bootID: "clock-check")
            return Array(store.readings(HistoryQuery(kind: .meterGlucose)))
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
