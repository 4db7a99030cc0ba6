import Clocks
import Glibc
import Synchronization
import Testing
import Platform

/// Records what the tone thread writes. The thread is real, so these are real-time tests of a
/// real thread: rates are asserted within generous bounds (40%...150% of the expected toggles)
/// because the machine is shared and the scheduler may be late.
final class LevelRecorder: Sendable {
    struct State {
        var writes = 0
        var toggles = 0
        var level = false
    }
    let state = Mutex(State())
    /// Fail the write with this error when it is the `failOnWrite`th (1-based).
    let failOnWrite: Int?
    /// Fail every write from this one on (1-based): a line that broke for good.
    let failFrom: Int?

    init(failOnWrite: Int? = nil, failFrom: Int? = nil) {
        self.failOnWrite = failOnWrite
        self.failFrom = failFrom
    }

    var setLevel: ToneGenerator.SetLevel {
        { (on: Bool) throws(GPIOError) in
            let fail = self.state.withLock { state -> Bool in
                state.writes += 1
                if state.writes == self.failOnWrite || self.failFrom.map({ state.writes >= $0 }) == true { return true }
                if state.level != on { state.toggles += 1 }
                state.level = on
                return false
            }
            if fail { throw GPIOError.system(operation: "GPIO_V2_LINE_SET_VALUES_IOCTL(test)", errno: EIO) }
        }
    }

    var toggles: Int { state.withLock { $0.toggles } }
    var level: Bool { state.withLock { $0.level } }
    var writes: Int { state.withLock { $0.writes } }
}

@Suite struct ToneGeneratorTests {
    /// Plays `hertz` for about `milliseconds` and returns (toggles seen, toggles expected for the
    /// time that really passed).
    func measure(_ generator: ToneGenerator, _ recorder: LevelRecorder, hertz: Int, milliseconds: Int) throws -> (Int, Double) {
        let before = recorder.toggles
        let start = SystemClock.monotonicNow()
        try generator.play(hertz: hertz)
        sleepFor(milliseconds: milliseconds)
        let toggles = recorder.toggles - before
        let elapsed = (SystemClock.monotonicNow() - start).seconds
        return (toggles, 2 * Double(hertz) * elapsed)
    }

    @Test(arguments: [440, 1000, 2700])
    func togglesAtTheRequestedRateAndStopsLow(hertz: Int) throws {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        let (toggles, expected) = try measure(generator, recorder, hertz: hertz, milliseconds: 200)
        #expect(Double(toggles) >= 0.4 * expected, "\(toggles) toggles, expected about \(expected)")
        #expect(Double(toggles) <= 1.5 * expected, "\(toggles) toggles, expected about \(expected)")

        generator.stop()
        #expect(recorder.level == false)
        let afterStop = recorder.writes
        sleepFor(milliseconds: 20)
        #expect(recorder.writes == afterStop, "the thread wrote after stop returned")
    }

    @Test func silenceLeavesTheLineLowAndPlayResumes() throws {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        try generator.play(hertz: 500)
        #expect(eventually { recorder.toggles >= 10 })
        try generator.play(hertz: nil)
        // Taken up at the next toggle, within half a period (1 ms); the level may be low at a
        // toggle before that, so wait until the writes have stopped, not just for a low level.
        #expect(eventually {
            let writes = recorder.writes
            sleepFor(milliseconds: 5)
            return recorder.writes == writes && recorder.level == false
        })
        let silent = recorder.writes
        sleepFor(milliseconds: 30)
        #expect(recorder.writes == silent, "writes while silent")
        #expect(recorder.level == false)

        try generator.play(hertz: 2000)
        #expect(eventually { recorder.writes >= silent + 10 })
        generator.stop()
        #expect(recorder.level == false)
    }

    @Test func aHigherFrequencyTogglesFaster() throws {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        let (low, _) = try measure(generator, recorder, hertz: 200, milliseconds: 200)
        let (high, expectedHigh) = try measure(generator, recorder, hertz: 2000, milliseconds: 200)
        generator.stop()
        #expect(Double(high) >= 0.4 * expectedHigh, "\(high) toggles at 2 kHz, expected about \(expectedHigh)")
        #expect(high > 2 * low, "\(high) toggles at 2 kHz against \(low) at 200 Hz")
    }

    @Test(arguments: [0, 19, 20_001, -440])
    func inaudibleFrequenciesAreRefused(hertz: Int) {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        #expect(throws: GPIOError.invalidArgument(operation: "ToneGenerator.play(hertz: \(hertz))",
                                                  reason: "a tone must be within 20...20000 Hz")) {
            try generator.play(hertz: hertz)
        }
        generator.stop()
        #expect(recorder.writes == 0)
    }

    @Test func stopWithoutPlayWritesNothingAndPlayAfterStopRestarts() throws {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        generator.stop()
        generator.stop()
        try generator.play(hertz: nil)
        #expect(recorder.writes == 0)

        try generator.play(hertz: 1000)
        #expect(eventually { recorder.toggles >= 4 })
        generator.stop()
        generator.stop()
        #expect(recorder.level == false)
        let before = recorder.toggles
        try generator.play(hertz: 1000)
        #expect(eventually { recorder.toggles >= before + 4 })
        generator.stop()
        #expect(recorder.level == false)
    }

    /// A write that fails stops the tone, drives the line low, and shows in `failure`; the
    /// next play tries the line again, and a toggle that works clears the failure.
    @Test func aFailedWriteShowsUntilAToggleWorks() throws {
        let recorder = LevelRecorder(failOnWrite: 4)
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        try generator.play(hertz: 1000)
        let error = GPIOError.system(operation: "GPIO_V2_LINE_SET_VALUES_IOCTL(test)", errno: EIO)
        #expect(eventually { generator.failure == error })
        #expect(eventually { recorder.level == false })
        let afterFailure = recorder.writes
        sleepFor(milliseconds: 20)
        #expect(recorder.writes == afterFailure, "the tone went on after its line failed")
        #expect(generator.failure == error, "the low write after the failure cleared it")

        try generator.play(hertz: 1000)
        #expect(eventually { recorder.writes >= afterFailure + 4 })
        #expect(eventually { generator.failure == nil })
        generator.stop()
        #expect(recorder.level == false)
    }

    /// A line that stays broken stays failing across bursts: silence between them (where the
    /// old generator forgot the failure at each play) and a new burst do not hide it, so the
    /// face fault does not flap with the bursts.
    @Test func aLineThatStaysBrokenStaysFailingAcrossBursts() throws {
        let recorder = LevelRecorder(failFrom: 3)
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        let error = GPIOError.system(operation: "GPIO_V2_LINE_SET_VALUES_IOCTL(test)", errno: EIO)
        for _ in 0..<3 {
            try generator.play(hertz: 1000)
            #expect(eventually { generator.failure == error })
            try generator.play(hertz: nil)
            sleepFor(milliseconds: 5)
            #expect(generator.failure == error)
        }
        let writes = recorder.writes
        try generator.play(hertz: 1000)
        #expect(eventually { recorder.writes > writes }, "a burst after a failure did not try the line again")
        #expect(generator.failure == error)
        generator.stop()
    }

    /// The tone thread blocks every signal, so a SIGTERM meant for the event loop's signalfd can
    /// never land on it and take the default action. Read from the kernel's view of each thread
    /// named "vigil-tone" (other tests' generators run in parallel: all must block).
    @Test func toneThreadBlocksSignals() throws {
        let recorder = LevelRecorder()
        let generator = ToneGenerator(setLevel: recorder.setLevel)
        try generator.play(hertz: 1000)
        defer { generator.stop() }
        #expect(eventually { recorder.toggles >= 2 })
        let masks = try blockedSignalMasks(ofThreadsNamed: "vigil-tone")
        #expect(!masks.isEmpty, "no thread named vigil-tone")
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1] {
            #expect(masks.allSatisfy { $0 & (1 << UInt64(signal - 1)) != 0 }, "signal \(signal) not blocked: \(masks)")
        }
    }

    @Test func deinitStopsTheThreadAndLeavesLow() throws {
        let recorder = LevelRecorder()
        do {
            let generator = ToneGenerator(setLevel: recorder.setLevel)
            try generator.play(hertz: 1000)
            #expect(eventually { recorder.toggles >= 4 })
        }
        #expect(recorder.level == false)
        let after = recorder.writes
        sleepFor(milliseconds: 20)
        #expect(recorder.writes == after)
    }

    @Test(.enabled(if: SimulatedGPIOChip.isAvailable, "no gpio-sim chip on this machine (needs configfs gpio-sim)"))
    func drivesARealLineAndLeavesItLow() throws {
        try SimulatedGPIOChip.withExclusiveUse { sim in
            let chip = try GPIOChip.open(GPIOChipSelector(candidates: [sim.path]))
            let output = try chip.requestOutput(offset: 0, consumer: "vigil-test-tone", activeLow: false, initiallyOn: false)
            let generator = ToneGenerator(output: output)
            try generator.play(hertz: 500)
            var sawHigh = false
            #expect(eventually { sawHigh = sawHigh || ((try? sim.level(offset: 0)) ?? false); return sawHigh })
            generator.stop()
            #expect(generator.failure == nil)
            #expect(try sim.level(offset: 0) == false)
            #expect(output.isOn == false)
        }
    }
}
