import App
import Clocks
import Testing

@Suite struct WallClockWatchTests {
    static let believable = WallClockTime(secondsSinceEpoch: 1_735_689_600)
    func t(_ seconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: seconds * 1_000_000_000) }

    @Test func aSteadyClockIsNoStepNorIsASmallSlew() {
        var watch = WallClockWatch(earliestBelievable: Self.believable)
        #expect(watch.observe(monotonic: t(100), wall: WallClockTime(secondsSinceEpoch: 1_790_000_000)) == nil)
        #expect(watch.observe(monotonic: t(160), wall: WallClockTime(secondsSinceEpoch: 1_790_000_060)) == nil)
        #expect(watch.observe(monotonic: t(220), wall: WallClockTime(secondsSinceEpoch: 1_790_000_140)) == nil, "20 s of slew is not a step")
    }

    @Test func theFirstNetworkTimeAfterBootSetsTheClock() throws {
        var watch = WallClockWatch(earliestBelievable: Self.believable)
        _ = watch.observe(monotonic: t(10), wall: WallClockTime(secondsSinceEpoch: 10))  // 1970
        let observed = watch.observe(monotonic: t(70), wall: WallClockTime(secondsSinceEpoch: 1_790_000_000))
        let step = try #require(observed)
        #expect(step.monotonic == t(70))
        #expect(step.from == WallClockTime(secondsSinceEpoch: 70))
        #expect(step.to == WallClockTime(secondsSinceEpoch: 1_790_000_000))
        #expect(step.setsTheClock)
        #expect(watch.observe(monotonic: t(130), wall: WallClockTime(secondsSinceEpoch: 1_790_000_060)) == nil, "steady again")
    }

    @Test func aDayEitherWayIsAStepThatDoesNotSetTheClock() throws {
        var watch = WallClockWatch(earliestBelievable: Self.believable)
        _ = watch.observe(monotonic: t(0), wall: WallClockTime(secondsSinceEpoch: 1_790_000_000))
        let stepForward = watch.observe(monotonic: t(60), wall: WallClockTime(secondsSinceEpoch: 1_790_086_460))
        let forward = try #require(stepForward)
        #expect(forward.to - forward.from == .seconds(86_400))
        #expect(!forward.setsTheClock)
        let stepBack = watch.observe(monotonic: t(120), wall: WallClockTime(secondsSinceEpoch: 1_790_000_120))
        let back = try #require(stepBack)
        #expect(back.to - back.from == .seconds(-86_400))
    }

    @Test func theShiftOfAStepAheadIsKeptForTheNextRun() throws {
        var watch = WallClockWatch(earliestBelievable: Self.believable)
        _ = watch.observe(monotonic: t(0), wall: WallClockTime(secondsSinceEpoch: 1_790_000_000))
        _ = watch.observe(monotonic: t(60), wall: WallClockTime(secondsSinceEpoch: 1_790_086_460))
        #expect(watch.shiftText == "86400\n")
        let restored = try #require(WallClockWatch.shift(parsing: watch.shiftText))
        // The next run starts on the clock that is still a day ahead: nothing steps, and
        // retention still ages rows by the clock as it ran before the step.
        var next = WallClockWatch(earliestBelievable: Self.believable, unexplainedShift: restored)
        #expect(next.observe(monotonic: t(5), wall: WallClockTime(secondsSinceEpoch: 1_790_090_000)) == nil)
        #expect(next.retentionTime(wall: WallClockTime(secondsSinceEpoch: 1_790_090_000)) == WallClockTime(secondsSinceEpoch: 1_790_003_600))
        // Put right in that run: the step back cancels it.
        _ = next.observe(monotonic: t(65), wall: WallClockTime(secondsSinceEpoch: 1_790_003_660))
        #expect(next.unexplainedShift == .zero)
        #expect(next.retentionTime(wall: WallClockTime(secondsSinceEpoch: 1_790_003_660)) == WallClockTime(secondsSinceEpoch: 1_790_003_660))
    }

    @Test(arguments: ["", "x\n", "1.5\n", "86400\n\n", " 86400\n"])
    func anythingButWholeSecondsIsRefused(text: String) {
        #expect(WallClockWatch.shift(parsing: text) == nil)
    }

    @Test func aShiftBackIsKeptTooSoThatPuttingItRightCancelsIt() {
        #expect(WallClockWatch.shift(parsing: "-86400\n") == .seconds(-86_400))
        #expect(WallClockWatch.shift(parsing: "0") == .zero)
    }
}
