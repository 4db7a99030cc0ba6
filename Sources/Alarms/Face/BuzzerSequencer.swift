import Clocks

/// One buzzer edge: the line level, when, and for a passive buzzer the tone to play while high.
public struct BuzzerTransition: Hashable, Sendable, CustomStringConvertible {
    public var level: LineLevel
    public var at: MonotonicInstant
    /// Set only for a passive buzzer going high: the frequency to PWM or toggle at.
    public var toneHertz: Int?

    public init(_ level: LineLevel, at: MonotonicInstant, toneHertz: Int? = nil) {
        self.level = level
        self.at = at
        self.toneHertz = toneHertz
    }

    public var description: String { "\(level)@\(at)" + (toneHertz.map { "(\($0)Hz)" } ?? "") }
}

/// Turns the engine's abstract `AlarmPattern.Buzzer` into buzzer line edges over time
/// (envelopes in `BuzzerRhythm`). Sans-IO: call `play(_:at:)`
/// whenever the engine's pattern may have changed, `handleDeadline(at:)` when `nextDeadline`
/// passes, then drain `takeTransitions()` and write them to the line.
///
/// Pattern changes: a more insistent pattern (`BuzzerRhythm.rank`) starts at once — a pulse
/// that is sounding is cut, and the new burst starts after `BuzzerRhythm.minimumGap` so the
/// ear hears a new burst begin. Anything else (lower priority, de-escalation, silence) waits
/// for the next pulse boundary, so a burst is never chopped into something that sounds like
/// a different priority.
public struct BuzzerSequencer: Sendable {
    public enum Drive: Hashable, Sendable {
        /// An active buzzer sounds by itself when its line is high.
        case active
        /// A passive buzzer needs the line driven at a tone frequency.
        case passive
    }

    private enum State: Sendable {
        case silent
        case waitingToStart(AlarmPattern.Buzzer, at: MonotonicInstant)
        case playing(AlarmPattern.Buzzer, PulseTrainPlayer)
    }

    public let drive: Drive
    private var state: State = .silent
    /// A less insistent pattern waiting for the next pulse boundary.
    private var pending: AlarmPattern.Buzzer?
    private var lastFellAt: MonotonicInstant?
    private var transitions: [BuzzerTransition] = []
    public private(set) var level: LineLevel = .low

    public init(drive: Drive) { self.drive = drive }

    /// The pattern being sounded (or about to start, after the minimum gap).
    public var sounding: AlarmPattern.Buzzer {
        switch state {
        case .silent: .silent
        case let .waitingToStart(buzzer, _), let .playing(buzzer, _): buzzer
        }
    }

    public var nextDeadline: MonotonicInstant? {
        switch state {
        case .silent: nil
        case let .waitingToStart(_, start): start
        case let .playing(_, player): player.stepEndsAt
        }
    }

    public mutating func takeTransitions() -> [BuzzerTransition] {
        defer { transitions = [] }
        return transitions
    }

    public mutating func handleDeadline(at now: MonotonicInstant) { advance(to: now) }

    /// Asks for `buzzer` from `now` on. Repeating the current pattern changes nothing; a new
    /// `kind` at the same priority and escalation keeps the rhythm running.
    public mutating func play(_ buzzer: AlarmPattern.Buzzer, at now: MonotonicInstant) {
        advance(to: now)
        let current = sounding
        if BuzzerRhythm.rank(of: buzzer) == BuzzerRhythm.rank(of: current) {
            pending = nil
            replaceKind(with: buzzer)
            return
        }
        if BuzzerRhythm.rank(of: buzzer) > BuzzerRhythm.rank(of: current) {
            pending = nil
            if level == .high { fall(at: now) }
            let earliestStart = lastFellAt.map { $0 + BuzzerRhythm.minimumGap } ?? now
            start(buzzer, at: max(now, earliestStart))
            return
        }
        switch state {
        case .silent: break
        case .waitingToStart:
            // Nothing has sounded yet: the burst that was due simply never starts.
            if case .silent = buzzer { state = .silent } else { start(buzzer, at: nextDeadline ?? now) }
        case .playing:
            pending = buzzer
        }
    }

    private mutating func replaceKind(with buzzer: AlarmPattern.Buzzer) {
        switch state {
        case .silent: break
        case let .waitingToStart(_, start): state = .waitingToStart(buzzer, at: start)
        case let .playing(_, player): state = .playing(buzzer, player)
        }
    }

    private mutating func start(_ buzzer: AlarmPattern.Buzzer, at start: MonotonicInstant) {
        state = .waitingToStart(buzzer, at: start)
    }

    private mutating func advance(to now: MonotonicInstant) {
        while true {
            switch state {
            case .silent:
                return
            case let .waitingToStart(buzzer, start):
                guard start <= now, case let .bursts(priority, escalated, _) = buzzer else { return }
                let player = PulseTrainPlayer(BuzzerRhythm.train(for: priority, escalated: escalated), startingAt: start)
                state = .playing(buzzer, player)
                if player.level == .high { rise(at: start) }
            case .playing(let buzzer, var player):
                guard let end = player.stepEndsAt, end <= now else { return }
                if let next = pending {
                    pending = nil
                    applyAtBoundary(next, at: end)
                    continue
                }
                for edge in player.advance(to: end) {
                    if edge.level == .high { rise(at: edge.at) } else { fall(at: edge.at) }
                }
                state = .playing(buzzer, player)
            }
        }
    }

    /// A pending change at a pulse boundary: after a pulse, keep the minimum gap; at the end
    /// of a gap, start straight away where the old pattern's next pulse would have been.
    private mutating func applyAtBoundary(_ next: AlarmPattern.Buzzer, at boundary: MonotonicInstant) {
        let wasHigh = level == .high
        if wasHigh { fall(at: boundary) }
        if case .silent = next {
            state = .silent
        } else {
            start(next, at: wasHigh ? boundary + BuzzerRhythm.minimumGap : boundary)
        }
    }

    private mutating func rise(at instant: MonotonicInstant) {
        level = .high
        var tone: Int?
        if drive == .passive, case let .bursts(priority, _, _) = sounding { tone = BuzzerRhythm.toneHertz(for: priority) }
        transitions.append(BuzzerTransition(.high, at: instant, toneHertz: tone))
    }

    private mutating func fall(at instant: MonotonicInstant) {
        level = .low
        lastFellAt = instant
        transitions.append(BuzzerTransition(.low, at: instant))
    }
}
