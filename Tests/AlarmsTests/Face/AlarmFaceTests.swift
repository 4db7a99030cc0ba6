import Clocks
import Readings
import Testing
@testable import Alarms

/// Every expected timeline below is written out by hand from the documented rhythms
/// (`BuzzerRhythm`: high 150 on / 100 off with 350 and 1000 ms splits; medium 200/150;
/// `LEDSequencer`: heartbeat 80/120/80/2720, high 200/300, medium 700/1050; the chirp: buzzer
/// 60 ms, LED 300 ms; `ButtonClassifier`: 30 ms debounce, 400 ms double window, 3 s long,
/// 2 s held at boot), never computed from the code under test.
@Suite struct AlarmFaceTests {
    static func ms(_ value: Int) -> MonotonicInstant { .zero + .milliseconds(value) }
    static func buzzer(_ level: LineLevel, _ at: Int, tone: Int? = nil) -> TimedFaceOutput {
        TimedFaceOutput(.buzzer(level, toneHertz: tone), at: ms(at))
    }
    static func led(_ level: LineLevel, _ at: Int) -> TimedFaceOutput { TimedFaceOutput(.led(level), at: ms(at)) }
    static func gesture(_ gesture: ButtonGesture, _ at: Int) -> TimedFaceOutput {
        TimedFaceOutput(.gesture(ButtonEvent(gesture, at: ms(at))), at: ms(at))
    }

    static let urgentLow = AlarmPattern(buzzer: .bursts(.high, escalated: false, kind: .urgentLow), led: .alarm(.high))
    static let low = AlarmPattern(buzzer: .bursts(.medium, escalated: false, kind: .glucose(.low)), led: .alarm(.medium))

    /// Runs the face to `end`, serving every deadline on the way.
    static func run(_ face: inout AlarmFace, to end: Int) -> [TimedFaceOutput] {
        face.handleDeadline(at: ms(end))
        return face.takeTimedOutputs()
    }

    @Test func bootShowsTheHeartbeat() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        #expect(Self.run(&face, to: 3000) == [
            Self.led(.high, 0), Self.led(.low, 80), Self.led(.high, 200), Self.led(.low, 280), Self.led(.high, 3000),
        ])
        #expect(face.nextDeadline == Self.ms(3080))
    }

    @Test func anUrgentLowStartsItsBurstAndLEDAtOnce() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        _ = Self.run(&face, to: 10_000)
        face.show(Self.urgentLow, at: Self.ms(10_000))
        let outputs = Self.run(&face, to: 18_800)
        // The heartbeat was dark at 10 s (its flashes: 9.0-9.08, 9.2-9.28 s).
        let burst = [10_000, 10_150, 10_250, 10_400, 10_500, 10_650, 11_000, 11_150, 11_250, 11_400,
                     12_400, 12_550, 12_650, 12_800, 12_900, 13_050, 13_400, 13_550, 13_650, 13_800, 18_800]
        #expect(outputs.filter { if case .buzzer = $0.output { true } else { false } }
                == burst.enumerated().map { Self.buzzer($0.offset.isMultiple(of: 2) ? .high : .low, $0.element) })
        #expect(Array(outputs.filter { if case .led = $0.output { true } else { false } }.prefix(5))
                == [Self.led(.high, 10_000), Self.led(.low, 10_200), Self.led(.high, 10_500), Self.led(.low, 10_700), Self.led(.high, 11_000)])
        #expect(outputs.first == Self.buzzer(.high, 10_000), "the buzzer is written first")
    }

    @Test func showingTheSamePatternAgainKeepsTheRhythm() {
        var steady = AlarmFace(drive: .active, bootedAt: Self.ms(0), showing: Self.low)
        var nagged = AlarmFace(drive: .active, bootedAt: Self.ms(0), showing: Self.low)
        var a = Self.run(&steady, to: 30_000)
        var b: [TimedFaceOutput] = []
        for t in stride(from: 0, through: 30_000, by: 250) {
            nagged.show(Self.low, at: Self.ms(t))
            b += nagged.takeTimedOutputs()
        }
        b += Self.run(&nagged, to: 30_000)
        a += steady.takeTimedOutputs()
        #expect(a == b)
        #expect(a.count > 10)
    }

    @Test func passiveBuzzerCarriesThePriorityTone() {
        var face = AlarmFace(drive: .passive, bootedAt: Self.ms(0))
        face.show(Self.low, at: Self.ms(0))
        let buzzer = Self.run(&face, to: 900).filter { if case .buzzer = $0.output { true } else { false } }
        #expect(buzzer == [Self.buzzer(.high, 0, tone: 784), Self.buzzer(.low, 200), Self.buzzer(.high, 350, tone: 784),
                           Self.buzzer(.low, 550), Self.buzzer(.high, 700, tone: 784), Self.buzzer(.low, 900)])
    }

    @Test func selfTestChirpsThenTheHeartbeatResumes() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        let started = face.startSelfTest(at: Self.ms(0))
        #expect(started)
        #expect(face.isTesting)
        // The LED's chirp ends at 300 ms just as the resumed heartbeat turns it on: no edge.
        #expect(Self.run(&face, to: 3300) == [
            Self.led(.high, 0), Self.buzzer(.high, 0), Self.buzzer(.low, 60),
            Self.led(.low, 380), Self.led(.high, 500), Self.led(.low, 580), Self.led(.high, 3300),
        ])
        #expect(!face.isTesting)
    }

    @Test func selfTestThenAnAlarmSoundsAtOnce() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        face.startSelfTest(at: Self.ms(0))
        _ = Self.run(&face, to: 1000)
        face.show(Self.urgentLow, at: Self.ms(1000))
        #expect(Self.run(&face, to: 1250) == [
            Self.buzzer(.high, 1000), Self.led(.high, 1000), Self.buzzer(.low, 1150), Self.led(.low, 1200), Self.buzzer(.high, 1250),
        ])
    }

    @Test func anAlarmRaisedDuringTheSelfTestCutsIn() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        face.startSelfTest(at: Self.ms(0))
        face.show(Self.urgentLow, at: Self.ms(30))
        #expect(!face.isTesting)
        // The chirp is cut at 30 ms; the burst starts after the 100 ms minimum gap; the LED,
        // already on from the chirp, simply carries on in the high rhythm started at 30 ms.
        #expect(Self.run(&face, to: 600) == [
            Self.led(.high, 0), Self.buzzer(.high, 0), Self.buzzer(.low, 30), Self.buzzer(.high, 130),
            Self.led(.low, 230), Self.buzzer(.low, 280), Self.buzzer(.high, 380), Self.buzzer(.low, 530), Self.led(.high, 530),
        ])
    }

    @Test func aTestIsRefusedWhileAnAlarmSounds() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0), showing: Self.urgentLow)
        _ = Self.run(&face, to: 500)
        let selfTest = face.startSelfTest(at: Self.ms(500)), patternTest = face.playTest(nil, at: Self.ms(500))
        #expect(!selfTest)
        #expect(!patternTest)
        #expect(!face.isTesting)
        #expect(face.takeOutputs().isEmpty)
    }

    @Test func patternTestPlaysOneBurstThenTheHeartbeatResumes() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        _ = Self.run(&face, to: 1000)
        let started = face.playTest(AlarmTestPattern(.medium), at: Self.ms(1000))
        #expect(started)
        #expect(Self.run(&face, to: 4900) == [
            Self.buzzer(.high, 1000), Self.led(.high, 1000), Self.buzzer(.low, 1200), Self.buzzer(.high, 1350),
            Self.buzzer(.low, 1550), Self.buzzer(.high, 1700), Self.led(.low, 1700), Self.buzzer(.low, 1900),
            Self.led(.high, 1900), Self.led(.low, 1980), Self.led(.high, 2100), Self.led(.low, 2180), Self.led(.high, 4900),
        ])
    }

    @Test func anAlarmAfterATestWaitsForTheMinimumGap() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0))
        face.playTest(AlarmTestPattern(.medium), at: Self.ms(0))
        _ = Self.run(&face, to: 899)
        // The test's last pulse ends at 900 ms; the alarm shown then starts 100 ms later.
        face.show(Self.low, at: Self.ms(900))
        #expect(Self.run(&face, to: 1200) == [
            Self.buzzer(.low, 900), Self.led(.high, 900), Self.buzzer(.high, 1000), Self.buzzer(.low, 1200),
        ])
    }

    @Test func restoredAlarmSoundsAtBoot() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(5000), showing: Self.urgentLow)
        #expect(face.takeTimedOutputs() == [Self.led(.high, 5000), Self.buzzer(.high, 5000)])
        #expect(face.isSounding)
    }

    @Test(arguments: [
        ([(ButtonEdge.pressed, 1000), (.released, 1200)], [AlarmFaceTests.gesture(.short, 1630)]),
        ([(.pressed, 1000)], [AlarmFaceTests.gesture(.long, 4030)]),
        ([(.pressed, 1000), (.released, 1100), (.pressed, 1300), (.released, 1400)], [AlarmFaceTests.gesture(.double, 1430)]),
        ([(.pressed, 1000), (.released, 1005), (.pressed, 1010), (.released, 1015)], []),
    ])
    func buttonGesturesComeOutWhenDecided(edges: [(ButtonEdge, Int)], expected: [TimedFaceOutput]) {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0), showing: AlarmPattern(buzzer: .silent, led: .alarm(.low)))
        _ = face.takeOutputs()
        for (edge, at) in edges { face.receive(edge, at: Self.ms(at)) }
        #expect(Self.run(&face, to: 10_000) == expected)
    }

    @Test func heldAtBootIsAGesture() {
        var face = AlarmFace(drive: .active, bootedAt: Self.ms(0), buttonPressedAtBoot: true,
                             showing: AlarmPattern(buzzer: .silent, led: .alarm(.low)))
        #expect(Self.run(&face, to: 5000) == [Self.led(.high, 0), Self.gesture(.heldAtBoot, 2030)])
    }
}
