import Clocks

/// A raw edge from the button line, as the GPIO layer reports it (pull-up, active low: the
/// GPIO layer has already turned "falling" into `.pressed`).
public enum ButtonEdge: Hashable, Sendable {
    case pressed
    case released
}

/// What the person meant: short snoozes the sounding alarm, long
/// snoozes all or acknowledges, double exports, held at boot runs the self-test.
public enum ButtonGesture: Hashable, Sendable, CustomStringConvertible {
    case short
    case long
    case double
    case heldAtBoot

    public var description: String {
        switch self {
        case .short: "short"
        case .long: "long"
        case .double: "double"
        case .heldAtBoot: "held-at-boot"
        }
    }
}

/// A recognised gesture and the instant it was decided.
public struct ButtonEvent: Hashable, Sendable, CustomStringConvertible {
    public var gesture: ButtonGesture
    public var at: MonotonicInstant

    public init(_ gesture: ButtonGesture, at: MonotonicInstant) {
        self.gesture = gesture
        self.at = at
    }

    public var description: String { "\(gesture)@\(at)" }
}

/// Raw button edges in, debounced and classified gestures out, on a virtual clock.
///
/// Timings: a level counts once it has been stable for `debounce` (30 ms; contact bounce of
/// tactile switches settles in 1–10 ms, so 30 ms is safe yet unnoticeable). A press lasts from
/// its settled press edge to its settled release edge. Long: held `longPress` (3 s). Double: a
/// second press starting within `doublePressWindow` (400 ms) of a short press's release, itself
/// released before 3 s. Held at boot: pressed when the appliance starts and still held after
/// `bootHold` (2 s). Every timed decision about an instant T is taken at T + `debounce`, so an
/// edge that was already happening at T is counted before deciding.
///
/// Odd cases, on purpose:
/// - A short press followed within the window by a long press reports only `.long`: the
///   person meant the hold.
/// - Pressed at boot but released before 2 s: nothing (a hand on the box while plugging in).
/// - Chatter that never holds a level for 30 ms yields no gesture.
/// - A missed release (a `pressed` edge while already pressed): the earlier press ended at an
///   unknown time, so it yields no gesture (unless its long press already fired); the new press
///   is classified from this edge. A missed press (`released` while released) is ignored.
public struct ButtonClassifier: Sendable {
    public static let debounce: Duration = .milliseconds(30)
    public static let longPress: Duration = .seconds(3)
    public static let doublePressWindow: Duration = .milliseconds(400)
    public static let bootHold: Duration = .seconds(2)

    private enum Phase: Hashable, Sendable {
        case idle
        case heldSinceBoot(since: MonotonicInstant)
        case pressed(since: MonotonicInstant, isSecondPress: Bool)
        case awaitingSecondPress(firstReleasedAt: MonotonicInstant)
        /// A gesture already fired for this press (long, held at boot) or it cannot be timed.
        case awaitingRelease
    }

    private var phase: Phase
    private var rawPressed: Bool
    private var rawChangedAt: MonotonicInstant
    private var settledPressed: Bool
    private var events: [ButtonEvent] = []

    /// `pressedAtBoot`: the line level read once when the appliance starts.
    public init(bootedAt boot: MonotonicInstant, pressedAtBoot: Bool) {
        rawPressed = pressedAtBoot
        settledPressed = pressedAtBoot
        rawChangedAt = boot
        phase = pressedAtBoot ? .heldSinceBoot(since: boot) : .idle
    }

    public var isPressed: Bool { settledPressed }

    public mutating func takeEvents() -> [ButtonEvent] {
        defer { events = [] }
        return events
    }

    private var settleDeadline: MonotonicInstant? {
        rawPressed == settledPressed ? nil : rawChangedAt + Self.debounce
    }

    private var phaseDeadline: MonotonicInstant? {
        switch phase {
        case .idle, .awaitingRelease: nil
        case let .heldSinceBoot(since): since + Self.bootHold + Self.debounce
        case let .pressed(since, _): since + Self.longPress + Self.debounce
        case let .awaitingSecondPress(released): released + Self.doublePressWindow + Self.debounce
        }
    }

    public var nextDeadline: MonotonicInstant? { earliest(settleDeadline, phaseDeadline) }

    public mutating func receive(_ edge: ButtonEdge, at now: MonotonicInstant) {
        handleDeadline(at: now)
        let pressed = edge == .pressed
        if pressed == rawPressed {
            guard pressed else { return }  // a missed press: nothing to time
            // A missed release: forget the press we cannot time, and debounce this one afresh.
            if settledPressed {
                settledPressed = false
                if case .pressed = phase { phase = .idle }
                if case .heldSinceBoot = phase { phase = .idle }
                if case .awaitingRelease = phase { phase = .idle }
            }
        }
        rawPressed = pressed
        rawChangedAt = now
    }

    public mutating func handleDeadline(at now: MonotonicInstant) {
        while true {
            let settle = settleDeadline, decide = phaseDeadline
            if let settle, settle <= now, decide.map({ settle <= $0 }) ?? true {
                settledPressed = rawPressed
                settled(pressed: rawPressed, edgeAt: rawChangedAt, decidedAt: settle)
            } else if let decide, decide <= now {
                timedOut(at: decide)
            } else {
                return
            }
        }
    }

    private mutating func settled(pressed: Bool, edgeAt edge: MonotonicInstant, decidedAt decided: MonotonicInstant) {
        switch (phase, pressed) {
        case (.idle, true):
            phase = .pressed(since: edge, isSecondPress: false)
        case let (.awaitingSecondPress(released), true):
            phase = .pressed(since: edge, isSecondPress: edge - released <= Self.doublePressWindow)
        case let (.pressed(_, isSecondPress), false):
            if isSecondPress {
                events.append(ButtonEvent(.double, at: decided))
                phase = .idle
            } else {
                phase = .awaitingSecondPress(firstReleasedAt: edge)
            }
        case (.heldSinceBoot, false), (.awaitingRelease, false):
            phase = .idle
        default:
            // Settled levels alternate, so the other pairs cannot occur; stay put rather than trap.
            break
        }
    }

    private mutating func timedOut(at instant: MonotonicInstant) {
        switch phase {
        case .heldSinceBoot:
            events.append(ButtonEvent(.heldAtBoot, at: instant))
            phase = .awaitingRelease
        case .pressed:
            events.append(ButtonEvent(.long, at: instant))
            phase = .awaitingRelease
        case .awaitingSecondPress:
            events.append(ButtonEvent(.short, at: instant))
            phase = .idle
        case .idle, .awaitingRelease:
            break
        }
    }
}
