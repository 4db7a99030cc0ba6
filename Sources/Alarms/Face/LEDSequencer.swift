import Clocks

/// Turns the engine's abstract `AlarmPattern.LED` into LED line edges over time. Every state has
/// its own rhythm, so the state reads from across a dark bedroom; alarm rhythms follow IEC
/// 60601-1-8 §6.3.2 Table 2 for visual signals (high: 1.4–2.8 Hz, medium: 0.4–0.8 Hz, both 20–60 %
/// duty; low: steady on).
///
/// | state     | rhythm (ms, on/off…)       | why                                        |
/// |-----------|----------------------------|--------------------------------------------|
/// | heartbeat | 80, 120, 80, 2720          | a double "lub-dub" every 3 s: alive, calm  |
/// | searching | 150, 850                   | a short blink every second: looking        |
/// | snoozed   | 50, 4950                   | the faintest flash every 5 s: remembered   |
/// | fault     | 750, 250, 250, 250, 250, 1250 | long-short-short every 3 s: "call me"  |
/// | high      | 200, 300                   | 2 Hz, 40 % duty                            |
/// | medium    | 700, 1050                  | 0.57 Hz, 40 % duty                         |
/// | low       | steady on                  | the standard's low-priority visual signal  |
///
/// A change of state shows at once: the new rhythm starts at the instant it is asked for.
public struct LEDSequencer: Sendable {
    private var showing: AlarmPattern.LED?
    private var player: PulseTrainPlayer?
    private var transitions: [LineTransition] = []
    public private(set) var level: LineLevel = .low

    public init() {}

    public static func train(for led: AlarmPattern.LED) -> PulseTrain {
        switch led {
        case .heartbeat: PulseTrain(onOffMilliseconds: [80, 120, 80, 2720], repeats: true)
        case .searching: PulseTrain(onOffMilliseconds: [150, 850], repeats: true)
        case .snoozed: PulseTrain(onOffMilliseconds: [50, 4950], repeats: true)
        case .fault: PulseTrain(onOffMilliseconds: [750, 250, 250, 250, 250, 1250], repeats: true)
        case .alarm(.high): PulseTrain(onOffMilliseconds: [200, 300], repeats: true)
        case .alarm(.medium): PulseTrain(onOffMilliseconds: [700, 1050], repeats: true)
        // One long step: no edges, and a deadline only once an hour.
        case .alarm(.low): PulseTrain([.init(.high, .seconds(3600))], repeats: true)
        }
    }

    public var nextDeadline: MonotonicInstant? { player?.stepEndsAt }

    public mutating func takeTransitions() -> [LineTransition] {
        defer { transitions = [] }
        return transitions
    }

    public mutating func handleDeadline(at now: MonotonicInstant) {
        guard var running = player else { return }
        for edge in running.advance(to: now) { record(edge) }
        player = running
    }

    /// Shows `led` from `now` on; asking again for the state already shown keeps its rhythm.
    public mutating func show(_ led: AlarmPattern.LED, at now: MonotonicInstant) {
        handleDeadline(at: now)
        guard led != showing else { return }
        showing = led
        let running = PulseTrainPlayer(Self.train(for: led), startingAt: now)
        if running.level != level { record(LineTransition(running.level, at: now)) }
        player = running
    }

    private mutating func record(_ edge: LineTransition) {
        level = edge.level
        transitions.append(edge)
    }
}
