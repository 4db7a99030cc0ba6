import Alarms
import App
import Clocks
import Testing

/// The storage fault on the virtual clock: one fault for every write, raised while any failed
/// at its last attempt, state files saved again every 10 s, and losses that keep it raised for
/// the run.
@Suite struct SupervisorStorageTests {
    static let day = Duration.seconds(86_400)

    /// The clock's shift cannot be saved (a step of a set clock is kept for the next run): the
    /// fault is raised, the file saved again every 10 s while the history commits fine beside
    /// it, and the fault clears once a save works.
    @Test func aStateFileThatCannotBeSavedIsTriedAgainEvery10SecondsAndKeepsTheFaultUntilItIs() throws {
        var world = try SupervisorWorld(failingFiles: [.clockShift])
        world.advance(by: .seconds(10))
        #expect(world.storageFault.isEmpty)
        world.stepWallClock(to: world.wall + Self.day)
        let steppedAt = world.now
        world.advance(by: .milliseconds(1))
        #expect(world.logged("the wall clock stepped by"))
        #expect(world.storageFault == ["raised"])
        world.advance(by: .seconds(35))
        let retries = world.saveTimes(of: .clockShift).map { $0 - steppedAt }
        #expect(retries.count == 4, "\(retries)")
        for (first, next) in zip(retries, retries.dropFirst()) { #expect(next - first == Supervisor.saveRetryInterval) }
        #expect(world.storageFaultRaised, "good commits hid the unsaved file")
        #expect(world.readingRows(in: world.written) > 10, "readings went on being written")

        world.failingFiles = []
        world.advance(by: .seconds(10))
        #expect(world.storageFault == ["raised", "cleared"])
        #expect(!world.storageFaultRaised)
        let saved = world.saveTimes(of: .clockShift).count
        world.advance(by: .seconds(60))
        #expect(world.saveTimes(of: .clockShift).count == saved, "a saved file is not saved again")
    }

    /// The alarm state saved with the fault in it: the alarm state file is written beside a
    /// history that cannot take rows, and says the fault is raised.
    @Test func theAlarmStateIsSavedWithTheFaultInIt() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(5))
        let before = world.saveTimes(of: .alarmState).count
        world.historyLocked = true
        world.advance(by: .seconds(5))
        #expect(world.storageFaultRaised)
        #expect(world.saveTimes(of: .alarmState).count > before, "the raised fault was not saved")
    }

    /// Bonds the runner could not save are a storage fault like the others (a bond lost at the
    /// next restart means pairing again by hand); the runner retries them itself, so the
    /// supervisor does not, and a later save that works clears it.
    @Test func bondsThatCannotBeSavedKeepTheFaultUntilTheRunnerSavesThem() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(3))
        world.tell(.bondsSaved(succeeded: false))
        #expect(world.storageFault == ["raised"])
        world.advance(by: .seconds(30))
        #expect(world.storageFaultRaised)
        world.tell(.bondsSaved(succeeded: true))
        #expect(world.storageFault == ["raised", "cleared"])
    }

    /// Two writes failing: one working again does not clear the fault while the other fails.
    @Test func oneWriteWorkingAgainDoesNotHideAnotherThatFails() throws {
        var world = try SupervisorWorld(failingFiles: [.clockShift])
        world.advance(by: .seconds(3))
        world.stepWallClock(to: world.wall + Self.day)
        world.advance(by: .seconds(1))
        world.tell(.bondsSaved(succeeded: false))
        world.tell(.bondsSaved(succeeded: true))
        #expect(world.storageFaultRaised)
        world.failingFiles = []
        world.advance(by: .seconds(10))
        #expect(!world.storageFaultRaised)
        #expect(world.storageFault == ["raised", "cleared"])
    }

    /// State files found unreadable at start (and set aside) are a loss: the fault stays for
    /// the whole run, through every good write.
    @Test func stateFilesUnreadableAtStartKeepTheFaultForTheRun() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(3))
        world.tell(.stateFilesUnreadable(["transmitters", "alarm-state"]))
        #expect(world.supervisor.storageLosses == [.stateFile("transmitters"), .stateFile("alarm-state")])
        world.tell(.bondsSaved(succeeded: true))
        world.advance(by: .seconds(120))
        #expect(world.storageFault == ["raised"])
        #expect(world.storageFaultRaised)
    }

    /// The demo has no state directory: nothing is saved, and nothing is a fault.
    @Test func withoutAStateDirectoryNothingIsSaved() throws {
        var world = try SupervisorWorld(configure: { $0.savesState = false; $0.historyPath = nil })
        world.stepWallClock(to: world.wall + Self.day)
        world.advance(by: .seconds(30))
        #expect(world.saves.isEmpty)
        #expect(world.openAttempts.isEmpty)
        #expect(world.storageFault.isEmpty)
    }
}

/// `vigil run --retry-interval` (for tests through the binary): every storage retry comes after
/// it instead of 10 s, the history's first reopening included.
@Suite struct SupervisorRetryIntervalTests {
    @Test func aShorterRetryIntervalIsUsedByEveryRetry() throws {
        var world = try SupervisorWorld(configure: { $0.retryInterval = .seconds(1) }, failingFiles: [.clockShift], historyOpens: false)
        world.stepWallClock(to: world.wall + .seconds(86_400))
        world.advance(by: .seconds(3.5))
        let retries = world.saveTimes(of: .clockShift)
        #expect(zip(retries, retries.dropFirst()).allSatisfy { $1 - $0 == .seconds(1) }, "\(retries)")
        #expect(world.logged("readings wait in memory and it is tried again in 1.0 seconds"))
        #expect(world.openAttempts.map { $0.at - SupervisorWorld.start } == [0, 1, 3].map { Duration.seconds($0) })
    }
}
