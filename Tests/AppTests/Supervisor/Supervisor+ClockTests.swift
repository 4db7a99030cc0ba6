import Alarms
import App
import Clocks
import Testing

/// The wall clock set while the appliance runs (a board without a real-time clock boots in
/// 1970 and NTP sets it minutes later), on the virtual clock: the rows the unset clock dated
/// are re-dated once, at the right cut-off; applied once a history not open yet opens; and a
/// re-date that fails is the storage fault, tried again every 10 s.
@Suite struct SupervisorClockTests {
    /// The re-date's cut-off is the last pair of clock readings seen before the step: every row
    /// up to it was dated on the old clock, none after.
    @Test func settingTheClockReDatesWhatTheUnsetClockDated() throws {
        var world = try SupervisorWorld(wallAtStart: SupervisorWorld.unsetClock)
        world.advance(by: .seconds(30))
        let lastOldPair = world.now
        world.stepWallClock(to: SupervisorWorld.setClock)
        world.advance(by: .seconds(1))
        #expect(world.logged("the wall clock stepped by"))
        let setting = try #require(world.redated.first)
        #expect(world.redated.count == 1)
        #expect(setting.monotonic == lastOldPair)
        #expect(setting.to - setting.from > .seconds(86_400 * 365 * 50))
        #expect(world.logged("rows dated before the clock was set were re-dated"))
        #expect(world.storageFault.isEmpty)
        #expect(world.supervisor.clockSettingsNotApplied.isEmpty)
        // A setting is no unexplained shift: nothing is saved for retention.
        #expect(world.saveTimes(of: .clockShift).isEmpty)
    }

    /// The clock is set while the history cannot be opened: the setting waits, and is applied
    /// once it opens, after the rows that waited are appended.
    @Test func aHistoryNotOpenYetIsReDatedOnceItOpens() throws {
        var world = try SupervisorWorld(wallAtStart: SupervisorWorld.unsetClock, historyOpens: false)
        world.advance(by: .seconds(5))
        world.stepWallClock(to: SupervisorWorld.setClock)
        world.advance(by: .seconds(2))
        #expect(world.redated.isEmpty)
        #expect(world.supervisor.clockSettingsNotApplied.count == 1)
        world.historyOpens = true
        world.advance(by: .seconds(10))
        #expect(world.supervisor.historyIsOpen)
        #expect(world.redated.count == 1, "applied once, when it opened")
        #expect(world.supervisor.clockSettingsNotApplied.isEmpty)
        #expect(world.storageFault == ["raised", "cleared"])
        world.advance(by: .seconds(60))
        #expect(world.redated.count == 1, "applied twice")
    }

    /// The re-date fails (the history refusing writes just then): said, the storage fault
    /// raised, tried again every 10 s with the state files; once it works the fault clears.
    @Test func aReDateThatFailsIsTriedAgainUntilItWorks() throws {
        var world = try SupervisorWorld(wallAtStart: SupervisorWorld.unsetClock)
        world.advance(by: .seconds(20))
        world.redatesFail = true
        world.stepWallClock(to: SupervisorWorld.setClock)
        world.advance(by: .seconds(1))
        #expect(world.logged("history: re-dating after the clock was set failed: database is locked; tried again in 10.0 seconds"))
        #expect(world.storageFault == ["raised"])
        world.advance(by: .seconds(20))
        #expect(world.logCount("re-dating after the clock was set failed") == 3)
        world.redatesFail = false
        world.advance(by: .seconds(10))
        #expect(world.redated.count == 1)
        #expect(world.storageFault == ["raised", "cleared"])
        #expect(world.supervisor.clockSettingsNotApplied.isEmpty)
    }

    /// A step of a set clock (a day ahead) is said and saved for the next run's retention, and
    /// the prune after it ages rows on the clock as it ran before.
    @Test func aStepOfASetClockIsSavedAndRetentionIgnoresIt() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(5))
        world.stepWallClock(to: world.wall + .seconds(86_400))
        world.advance(by: .seconds(1))
        #expect(world.saveTimes(of: .clockShift).count == 1)
        #expect(world.redated.isEmpty)
    }

    /// A shift an earlier run saved is said at start.
    @Test func aShiftFromAnEarlierRunIsSaid() throws {
        let world = try SupervisorWorld(configure: { $0.clockShiftAtStart = .seconds(3600) })
        #expect(world.logged("the wall clock stepped by 3600.0 seconds in an earlier run"))
    }
}
