import Clocks

/// The level of one output line (buzzer or LED): what the GPIO layer writes.
public enum LineLevel: Hashable, Sendable, CustomStringConvertible {
    case low
    case high

    public var description: String { self == .high ? "on" : "off" }
}

/// An on/off rhythm as a list of timed steps: the shared shape of buzzer bursts, LED rhythms
/// and the self-test chirp. Kept as data so each rhythm is documented (and tested) as numbers.
public struct PulseTrain: Hashable, Sendable {
    public struct Step: Hashable, Sendable {
        public var level: LineLevel
        public var duration: Duration

        public init(_ level: LineLevel, _ duration: Duration) {
            self.level = level
            self.duration = duration
        }
    }

    public var steps: [Step]
    /// Whether the train starts over after its last step (alarm bursts, LED rhythms) or ends
    /// with the line low (self-test chirp, one burst in `vigil alarm test`).
    public var repeats: Bool

    public init(_ steps: [Step], repeats: Bool) {
        // A zero-length cycle would spin forever in `advance`; drop zero steps, and give an
        // empty repeating train one long low step so it stays well-defined.
        let kept = steps.filter { $0.duration > .zero }
        self.steps = kept.isEmpty && repeats ? [Step(.low, .seconds(3600))] : kept
        self.repeats = repeats
    }

    /// Alternating on/off durations in milliseconds, starting with on: `[150, 100, 150, 900]`.
    public init(onOffMilliseconds: [Int], repeats: Bool) {
        self.init(onOffMilliseconds.enumerated().map { index, ms in
            Step(index.isMultiple(of: 2) ? .high : .low, .milliseconds(ms))
        }, repeats: repeats)
    }

    /// One pass through the steps.
    public var cycleDuration: Duration { steps.reduce(.zero) { $0 + $1.duration } }
}

/// A line edge at a known instant: the sequencers' output.
public struct LineTransition: Hashable, Sendable, CustomStringConvertible {
    public var level: LineLevel
    public var at: MonotonicInstant

    public init(_ level: LineLevel, at: MonotonicInstant) {
        self.level = level
        self.at = at
    }

    public var description: String { "\(level)@\(at)" }
}

/// Plays a `PulseTrain` on a virtual clock: the step index and when the current step ends.
/// Edges are stamped with their scheduled instants, not with the (possibly late) `now`.
struct PulseTrainPlayer: Hashable, Sendable {
    private(set) var train: PulseTrain
    private(set) var stepIndex = 0
    /// When the current step ends; nil once a non-repeating train has finished.
    private(set) var stepEndsAt: MonotonicInstant?

    /// The level the train wants right now.
    var level: LineLevel { stepEndsAt == nil ? .low : train.steps[stepIndex].level }

    init(_ train: PulseTrain, startingAt start: MonotonicInstant) {
        self.train = train
        self.stepEndsAt = train.steps.isEmpty ? nil : start + train.steps[0].duration
    }

    /// Moves through every step that ended at or before `now`, returning the level changes.
    mutating func advance(to now: MonotonicInstant) -> [LineTransition] {
        var edges: [LineTransition] = []
        while let end = stepEndsAt, end <= now {
            let before = level
            moveToNextStep(at: end)
            if level != before { edges.append(LineTransition(level, at: end)) }
        }
        return edges
    }

    private mutating func moveToNextStep(at end: MonotonicInstant) {
        if stepIndex + 1 < train.steps.count {
            stepIndex += 1
        } else if train.repeats {
            stepIndex = 0
        } else {
            stepEndsAt = nil
            return
        }
        stepEndsAt = end + train.steps[stepIndex].duration
    }
}
