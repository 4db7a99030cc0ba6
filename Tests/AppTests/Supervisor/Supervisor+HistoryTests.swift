import Alarms
import App
import Clocks
import Testing

/// The history's storage faults on the virtual clock: a history that cannot be opened, tried
/// again with back-off while readings wait in memory; commits that fail, their rows held in
/// memory up to the limit and the loss when that overflows; pruning that fails; corruption at
/// start; and what exit does with rows still waiting.
@Suite struct SupervisorHistoryTests {
    /// The history cannot be opened at start: the fault sounds before the first reading, the
    /// readings wait in memory, and it is tried again 10 s after the failure, then twice as long
    /// each time. Once it opens, every reading that waited is written and the fault clears.
    @Test func aHistoryThatCannotBeOpenedIsTriedAgainWithBackOffAndNothingThatWaitedIsLost() throws {
        var world = try SupervisorWorld(historyOpens: false)
        #expect(world.storageFault == ["raised"])
        #expect(world.readingEvents == 0, "the fault sounds from the start")
        #expect(world.logged("history: cannot open /state/history.sqlite: unable to open database file; readings wait in memory and it is tried again in 10.0 seconds"))
        world.advance(by: .seconds(160))
        let delays = zip(world.openAttempts, world.openAttempts.dropFirst()).map { $1.at - $0.at }
        #expect(world.openAttempts.map(\.attempt) == [1, 2, 3, 4, 5])
        #expect(delays == [10, 20, 40, 80].map { Duration.seconds($0) })
        #expect(world.logged("history: still cannot open /state/history.sqlite (attempt 5): unable to open database file;"))
        #expect(world.storageFaultRaised)
        let waiting = try #require(world.supervisor.historyReopening)
        #expect(waiting.waitingRows > 40 && waiting.dropped == 0)

        world.historyOpens = true
        world.advance(by: .seconds(160))
        #expect(world.openAttempts.map(\.attempt) == [1, 2, 3, 4, 5, 6])
        #expect(world.logged("history: opened /state/history.sqlite at attempt 6;"))
        #expect(world.storageFault == ["raised", "cleared"])
        #expect(world.readingRows(in: world.written) == world.observedReadingCount, "a reading that waited was lost")
        #expect(world.pending.isEmpty)
    }

    /// Opening checks the whole file, seconds on a slow card, so it runs on a thread of its
    /// own: readings keep reaching the alarms (and waiting) meanwhile, and no other attempt
    /// starts until it ends.
    @Test func anAttemptStillRunningHoldsNothingAndStartsNoOther() throws {
        var world = try SupervisorWorld(historyOpens: false)
        world.holdOpenings = true
        world.advance(by: .seconds(11))
        #expect(world.attemptRunning == 2)
        let before = world.readingEvents
        world.advance(by: .seconds(120))
        #expect(world.readingEvents >= before + 30, "readings stopped while the history was being opened")
        #expect(world.openAttempts.count == 2, "another attempt started while one ran")
        world.historyOpens = true
        world.finishOpening()
        #expect(world.storageFault == ["raised", "cleared"])
        #expect(world.readingRows(in: world.written) == world.observedReadingCount)
    }

    /// Another process holds the history's write lock: each turn's commit fails, the rows wait
    /// in memory, and the fault stays raised while the state files save fine beside it. The
    /// lock goes: the rows that waited are committed, and only then the fault clears.
    @Test func aCommitThatFailsKeepsTheRowsAndTheFaultUntilACommitWorks() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(10))
        world.historyLocked = true
        world.advance(by: .seconds(30))
        #expect(world.logged("history: cannot write (database is locked);"))
        #expect(world.logged("rows kept in memory"))
        #expect(world.storageFault == ["raised"])
        #expect(world.saves.contains { $0.file == .alarmState }, "the alarm state saved beside the locked history")
        #expect(world.readingRows(in: world.pending) >= 9)

        world.historyLocked = false
        world.advance(by: .seconds(3))
        #expect(world.storageFault == ["raised", "cleared"])
        #expect(world.readingRows(in: world.written) == world.observedReadingCount)
    }

    /// Rows held in memory are bounded: past the limit the oldest are dropped, said, and that
    /// loss keeps the fault raised for the rest of the run, though commits work again.
    @Test func rowsThatOverflowTheMemoryBoundAreALossForTheRun() throws {
        var world = try SupervisorWorld(configure: { $0.historyRowLimit = 5 })
        world.advance(by: .seconds(10))
        world.historyLocked = true
        world.advance(by: .seconds(60))
        #expect(world.droppedTotal > 0)
        #expect(world.logged("older readings did not fit in memory while it could not be written, and are lost"))
        world.historyLocked = false
        world.advance(by: .seconds(120))
        #expect(world.supervisor.storageLosses == [.readingsDropped])
        #expect(world.storageFault == ["raised"], "a good commit hid the dropped readings")
        // Each commit says what it dropped: every row is said lost exactly once.
        let said = world.logs.compactMap { line -> Int? in
            guard line.text.contains("older readings did not fit") else { return nil }
            return Int(line.text.dropFirst("history: ".count).prefix { $0 != " " })
        }
        #expect(said.reduce(0, +) == world.droppedTotal)
    }

    /// Readings that overflow the wait for a history not open yet are a loss too, said when it opens.
    @Test func rowsThatOverflowTheWaitForAHistoryNotOpenAreALossForTheRun() throws {
        var world = try SupervisorWorld(configure: { $0.historyRowLimit = 5 }, historyOpens: false)
        world.advance(by: .seconds(25))
        #expect((world.supervisor.historyReopening?.dropped ?? 0) > 0)
        world.historyOpens = true
        world.advance(by: .seconds(40))
        #expect(world.supervisor.historyIsOpen)
        #expect(world.logged("older ones did not fit and are lost"))
        #expect(world.storageFault == ["raised"])
        #expect(world.supervisor.storageLosses == [.readingsDropped])
    }

    /// A corrupt history moved aside at start: the fresh one is written, but the fault stays
    /// raised for the whole run (months of readings were set aside).
    @Test func aCorruptHistoryAtStartIsALossForTheRun() throws {
        var world = try SupervisorWorld(openOutcome: .recreatedAfterCorruption(movedTo: "/state/history.sqlite.corrupt-1", reason: "file is not a database"))
        world.advance(by: .seconds(60))
        #expect(world.logged("history: /state/history.sqlite was corrupt (file is not a database); moved to /state/history.sqlite.corrupt-1"))
        #expect(world.storageFault == ["raised"])
        #expect(world.readingRows(in: world.written) > 10)
    }

    /// A prune that fails is the storage fault (the size cap is not kept), tried again every
    /// 10 s; one that works clears it.
    @Test func aPruneThatFailsIsTriedAgainEvery10SecondsUntilOneWorks() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(5))
        #expect(world.prunes == 1, "pruned at the first turn with a history")
        world.advance(by: Supervisor.pruneInterval)
        #expect(world.prunes == 2)
        world.prunesFail = true
        world.advance(by: Supervisor.pruneInterval)
        #expect(world.logged("history: pruning failed: disk I/O error;"))
        #expect(world.storageFault == ["raised"])
        let failedAt = world.prunes
        world.advance(by: .seconds(30))
        #expect(world.prunes == failedAt + 3)
        world.prunesFail = false
        world.advance(by: .seconds(10))
        #expect(world.logged("history: pruning works again"))
        #expect(world.storageFault == ["raised", "cleared"])
    }

    /// SIGTERM while an attempt runs: the exit waits for it and writes what waited.
    @Test func anExitDuringAnAttemptWaitsForItAndWritesWhatWaited() throws {
        var world = try SupervisorWorld(historyOpens: false)
        world.holdOpenings = true
        world.advance(by: .seconds(15))
        world.historyOpens = true
        world.tell(.exiting)
        #expect(world.logged("history: created /state/history.sqlite"))
        #expect(world.logged("history: opened /state/history.sqlite at exit;"))
        #expect(!world.logged("lost at exit"))
        #expect(world.readingRows(in: world.written) == world.observedReadingCount)
    }

    /// An attempt that does not end in time is left behind and the rows that waited said lost;
    /// with no attempt running they are said lost at once.
    @Test func rowsThatWaitedAreSaidLostWhenTheHistoryDoesNotOpenByExit() throws {
        var world = try SupervisorWorld(historyOpens: false)
        world.holdOpenings = true
        world.advance(by: .seconds(15))
        world.supervisor.receive(.exiting, at: world.clocks)
        let actions = world.supervisor.takeActions()
        #expect(actions.contains { if case .finishHistoryOpening(Supervisor.historyOpenWaitAtExit) = $0 { true } else { false } })
        world.tell(.historyOpenDidNotEnd)
        #expect(world.logged("history: opening /state/history.sqlite did not end within 10.0 seconds of exit"))
        #expect(world.logged("rows that waited for /state/history.sqlite to open are lost at exit"))

        var idle = try SupervisorWorld(historyOpens: false)
        idle.advance(by: .seconds(5))
        idle.tell(.exiting)
        #expect(idle.logged("rows that waited for /state/history.sqlite to open are lost at exit"))
    }

    /// Rows pending in an open history are committed at exit; a failure is said.
    @Test func pendingRowsAreCommittedAtExit() throws {
        var world = try SupervisorWorld()
        world.advance(by: .seconds(10))
        world.historyLocked = true
        world.advance(by: .seconds(5))
        world.tell(.exiting)
        #expect(world.logged("rows could not be written at exit: database is locked"))
    }
}
