import Clocks

/// A buzzer pattern `vigil alarm test [pattern]` can play.
public struct AlarmTestPattern: Hashable, Sendable, CustomStringConvertible {
    public var priority: AlarmPriority
    public var escalated: Bool

    public init(_ priority: AlarmPriority, escalated: Bool = false) {
        self.priority = priority
        self.escalated = escalated
    }

    /// Loudest first, each plain form before its escalated one.
    public static let all: [AlarmTestPattern] = AlarmPriority.allCases.reversed().flatMap {
        [AlarmTestPattern($0), AlarmTestPattern($0, escalated: true)]
    }

    /// `high`, `high-escalated`, `medium`, …: the command-line names.
    public var name: String { escalated ? "\(priority)-escalated" : "\(priority)" }

    public init?(name: String) {
        guard let match = Self.all.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    public var description: String { name }
}

/// The start-up self-test and the pattern test, as fixed timelines. The self-test runs at every
/// start, like a smoke alarm's (a short chirp and an LED blink), so a dead buzzer is noticed before
/// the night it is needed; `vigil alarm test [pattern]` plays any pattern on demand.
/// The whole timeline is computed up front; the player hands out edges as the virtual clock
/// reaches them, so the event loop treats it like any other sans-IO machine.
///
/// - Start-up chirp: buzzer on 60 ms (one short "pip", shorter than any alarm pulse, so it is
///   never mistaken for one), LED on 300 ms, both starting together.
/// - Pattern test: each pattern once, in order, `gapBetweenPatterns` (2 s) apart. A plain pattern
///   is one burst; an escalated one is two bursts at its escalated spacing, since the spacing is
///   what makes it escalated. The LED shows the alarm rhythm of that priority while it sounds
///   and goes dark with the buzzer.
public struct SelfTestPlayer: Sendable {
    public static let chirpBuzzer = PulseTrain(onOffMilliseconds: [60], repeats: false)
    public static let chirpLED = PulseTrain(onOffMilliseconds: [300], repeats: false)
    public static let gapBetweenPatterns: Duration = .seconds(2)

    private var buzzerEdges: [BuzzerTransition]
    private var ledEdges: [LineTransition]
    private var buzzerTaken = 0, buzzerDue = 0
    private var ledTaken = 0, ledDue = 0

    /// The start-up chirp, starting at `start`.
    public init(startupChirpAt start: MonotonicInstant, drive: BuzzerSequencer.Drive) {
        buzzerEdges = Self.edges(of: Self.chirpBuzzer, from: start, until: nil).map {
            BuzzerTransition($0.level, at: $0.at, toneHertz: $0.level == .high && drive == .passive ? BuzzerRhythm.toneHertz(for: .high) : nil)
        }
        ledEdges = Self.edges(of: Self.chirpLED, from: start, until: nil)
    }

    /// The pattern test, starting at `start`.
    public init(testing patterns: [AlarmTestPattern], at start: MonotonicInstant, drive: BuzzerSequencer.Drive) {
        buzzerEdges = []
        ledEdges = []
        var at = start
        for pattern in patterns {
            let cycle = BuzzerRhythm.train(for: pattern.priority, escalated: pattern.escalated)
            // One burst is the cycle without its trailing silence; escalated plays it twice.
            let burst = Array(cycle.steps.dropLast())
            let steps = pattern.escalated ? burst + [cycle.steps[cycle.steps.count - 1]] + burst : burst
            let train = PulseTrain(steps, repeats: false)
            let end = at + train.cycleDuration
            let tone = drive == .passive ? BuzzerRhythm.toneHertz(for: pattern.priority) : nil
            buzzerEdges += Self.edges(of: train, from: at, until: nil).map {
                BuzzerTransition($0.level, at: $0.at, toneHertz: $0.level == .high ? tone : nil)
            }
            ledEdges += Self.edges(of: LEDSequencer.train(for: .alarm(pattern.priority)), from: at, until: end)
            at = end + Self.gapBetweenPatterns
        }
    }

    /// Every edge of `train` from `start`, cut (line low) at `end` if given.
    private static func edges(of train: PulseTrain, from start: MonotonicInstant, until end: MonotonicInstant?) -> [LineTransition] {
        var player = PulseTrainPlayer(train, startingAt: start)
        var edges = player.level == .high ? [LineTransition(.high, at: start)] : []
        let limit = end ?? (start + train.cycleDuration)
        edges += player.advance(to: limit).filter { $0.at < limit }
        if let last = edges.last, last.level == .high { edges.append(LineTransition(.low, at: limit)) }
        return edges
    }

    public var isFinished: Bool { buzzerDue == buzzerEdges.count && ledDue == ledEdges.count }

    public var nextDeadline: MonotonicInstant? {
        earliest(buzzerDue < buzzerEdges.count ? buzzerEdges[buzzerDue].at : nil,
                 ledDue < ledEdges.count ? ledEdges[ledDue].at : nil)
    }

    public mutating func handleDeadline(at now: MonotonicInstant) {
        while buzzerDue < buzzerEdges.count, buzzerEdges[buzzerDue].at <= now { buzzerDue += 1 }
        while ledDue < ledEdges.count, ledEdges[ledDue].at <= now { ledDue += 1 }
    }

    public mutating func takeBuzzerTransitions() -> [BuzzerTransition] {
        defer { buzzerTaken = buzzerDue }
        return Array(buzzerEdges[buzzerTaken..<buzzerDue])
    }

    public mutating func takeLEDTransitions() -> [LineTransition] {
        defer { ledTaken = ledDue }
        return Array(ledEdges[ledTaken..<ledDue])
    }
}
