import Alarms
import App
import Clocks
import Readings
import Testing

/// The wall clock jumping a day either way while the appliance runs, on a virtual
/// clock (the system clock cannot be stepped in this container): the step is noticed, retention
/// ages rows on the clock as it ran before a jump ahead, and the alarms, which run on the
/// monotonic clock, neither raise nor lose anything because of it. The history side (rows kept,
/// dates) is in HistoryTests/HistoryStoreClockJumpTests.
@Suite struct WallClockJumpFaultTests {
    static let day = Duration.seconds(86_400)
    /// 2026-11-22T10:00:00Z, a set clock.
    static let wall = WallClockTime(secondsSinceEpoch: 1_795_341_600)
    static let start = MonotonicInstant(nanoseconds: 5_000_000_000)

    static func at(_ minutes: Int64) -> MonotonicInstant { start + .seconds(minutes * 60) }

    @Test func aDayAheadIsTakenBackOutForRetentionAndADayBackIsBelieved() throws {
        var watch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
        #expect(watch.observe(monotonic: Self.at(0), wall: Self.wall) == nil)
        #expect(watch.retentionTime(wall: Self.wall) == Self.wall)
        // One minute later the clock reads a day and a minute later.
        let stepAhead = watch.observe(monotonic: Self.at(1), wall: Self.wall + Self.day + .seconds(60))
        let ahead = try #require(stepAhead)
        #expect(ahead.to - ahead.from == Self.day)
        #expect(!ahead.setsTheClock)
        #expect(watch.unexplainedShift == Self.day)
        #expect(watch.retentionTime(wall: Self.wall + Self.day + .seconds(120)) == Self.wall + .seconds(120),
                "retention keeps running on the clock as it was")
        // The bad source is corrected: a day back. Retention follows the wall clock again.
        let stepBack = watch.observe(monotonic: Self.at(2), wall: Self.wall + .seconds(120))
        let back = try #require(stepBack)
        #expect(back.to - back.from == .zero - Self.day)
        #expect(watch.unexplainedShift == .zero)
        #expect(watch.retentionTime(wall: Self.wall + .seconds(180)) == Self.wall + .seconds(180))
    }

    @Test func aDayBackFirstOnlyEverPrunesLess() throws {
        var watch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
        _ = watch.observe(monotonic: Self.at(0), wall: Self.wall)
        let stepBackFirst = watch.observe(monotonic: Self.at(1), wall: Self.wall - Self.day + .seconds(60))
        #expect(stepBackFirst != nil)
        #expect(watch.unexplainedShift == .zero - Self.day)
        #expect(watch.retentionTime(wall: Self.wall - Self.day + .seconds(60)) == Self.wall - Self.day + .seconds(60))
    }

    /// The first network time after boot sets the clock: that is no bad jump, and must not hold
    /// retention back by 56 years.
    @Test func settingTheClockAtBootIsNotHeldBack() throws {
        var watch = WallClockWatch(earliestBelievable: ApplianceAlarms.earliestBelievableTime)
        _ = watch.observe(monotonic: Self.at(0), wall: WallClockTime(secondsSinceEpoch: 300))
        let setting = watch.observe(monotonic: Self.at(1), wall: Self.wall)
        let set = try #require(setting)
        #expect(set.setsTheClock)
        #expect(watch.unexplainedShift == .zero)
        #expect(watch.retentionTime(wall: Self.wall) == Self.wall)
        // A fall back to 1970 (a dead clock battery's reset) and the set again are not counted either.
        _ = watch.observe(monotonic: Self.at(2), wall: WallClockTime(secondsSinceEpoch: 420))
        _ = watch.observe(monotonic: Self.at(3), wall: Self.wall + .seconds(180))
        #expect(watch.unexplainedShift == .zero)
    }

    /// Readings every 5 minutes; the wall clock steps a day ahead after the third, and a day
    /// back after the sixth. Signal loss (monotonic) never fires, the clock-not-set fault is
    /// never raised (a day either way is still a believable date), and an urgent low right after
    /// each step is raised at once, dated on the clock as it then reads.
    @Test(arguments: [Duration.seconds(86_400), .seconds(-86_400)])
    func theAlarmsRunThroughAStepOfADay(step: Duration) throws {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(watchedDevices: ["g6"]), at: Self.start)
        var raised: [AlarmEvent] = []
        func feed(_ mgdl: Double, minute: Int64, wall: WallClockTime) {
            let now = Self.at(minute)
            alarms.checkClock(wallNow: wall, at: now)
            if let deadline = alarms.nextDeadline, deadline <= now { alarms.handleDeadline(at: now) }
            let reading = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: mgdl), trend: .flat),
                                  time: .wallClock(wall))
            alarms.observe(.readings("g6", peer: nil, [reading]), monotonicNow: now, wallNow: wall)
            raised += alarms.takeEvents()
        }
        for i in Int64(0)..<3 { feed(120, minute: i * 5, wall: Self.wall + .seconds(i * 300)) }
        feed(120, minute: 15, wall: Self.wall + .seconds(900) + step)
        feed(120, minute: 20, wall: Self.wall + .seconds(1_200) + step)
        #expect(raised.isEmpty, "a step of the wall clock raised \(raised.map(\.kind))")
        feed(50, minute: 25, wall: Self.wall + .seconds(1_500) + step)
        let urgentLow = try #require(raised.first { $0.kind == .glucose(.urgentLow) }, "\(raised)")
        #expect(urgentLow.time == Self.at(25), "raised at once, not held or back-dated by the step")
        #expect(raised.allSatisfy { if case .glucose = $0.kind { true } else { false } }, "\(raised)")
        // Back to the first clock: the low is still sounding (escalated after its 5 minutes,
        // on the monotonic clock), nothing else.
        raised = []
        feed(50, minute: 30, wall: Self.wall + .seconds(1_800))
        #expect(raised.map(\.kind) == [.glucose(.urgentLow)], "\(raised)")
        #expect(raised.first?.change == .escalated, "\(raised)")
        #expect(alarms.engine.playing?.kind == .glucose(.urgentLow))
        // 19 minutes of silence: signal loss is counted on the monotonic clock only.
        alarms.handleDeadline(at: Self.at(49))
        #expect(!alarms.takeEvents().contains { if case .signalLoss = $0.kind { true } else { false } })
        alarms.handleDeadline(at: Self.at(50))
        #expect(alarms.takeEvents().contains { $0.kind == .signalLoss("g6") }, "20 minutes after the last reading")
    }

    /// A snooze is a monotonic span: a jump of a day ahead must not end it early.
    @Test func aSnoozeOutlastsAJumpAhead() throws {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        let low = Reading(device: "g6", value: .glucose(GlucoseConcentration(milligramsPerDeciliter: 65), trend: .flat), time: .monotonic(Self.at(0)))
        alarms.observe(.readings("g6", peer: nil, [low]), monotonicNow: Self.at(0), wallNow: Self.wall)
        #expect(alarms.takeEvents().contains { $0.kind == .glucose(.low) })
        alarms.receive(.snooze(.glucose(.low), for: .seconds(15 * 60)), at: Self.at(1))
        _ = alarms.takeEvents()
        alarms.checkClock(wallNow: Self.wall + Self.day + .seconds(120), at: Self.at(2))
        alarms.handleDeadline(at: Self.at(2))
        #expect(alarms.takeEvents().isEmpty)
        let deadline = try #require(alarms.nextDeadline)
        #expect(deadline >= Self.at(16), "the snooze still runs to 15 minutes after it was asked")
    }

    /// A day back from a set clock is believable; a step back to 1970 is the clock-not-set fault.
    @Test func aStepBackBelowTheBelievableDateIsTheClockFault() {
        var alarms = ApplianceAlarms(configuration: AlarmConfiguration(), at: Self.start)
        alarms.checkClock(wallNow: Self.wall - Self.day, at: Self.at(1))
        #expect(alarms.takeEvents().isEmpty)
        alarms.checkClock(wallNow: WallClockTime(secondsSinceEpoch: 60), at: Self.at(2))
        #expect(alarms.takeEvents().map(\.kind) == [.fault(.clockNotSet)])
    }
}
