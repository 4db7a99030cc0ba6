import Alarms
import Clocks

/// Anything that holds the alarm engine and takes its inputs: `ApplianceAlarms` (fed from the
/// appliance's events) or a bare `AlarmEngine`.
public protocol FaceAlarmSource {
    var engine: AlarmEngine { get }
    var nextDeadline: MonotonicInstant? { get }
    mutating func receive(_ input: AlarmEngine.Input, at now: MonotonicInstant)
    mutating func handleDeadline(at now: MonotonicInstant)
    mutating func takeEvents() -> [AlarmEvent]
}

extension ApplianceAlarms: FaceAlarmSource {}

extension AlarmEngine: FaceAlarmSource {
    public var engine: AlarmEngine { self }
}

/// The alarms and the face joined: after every change to the engine the face shows
/// `engine.pattern`; button gestures become engine inputs per `ButtonActions`. Sans-IO: the
/// shell feeds inputs with `now`, wakes at `nextDeadline`, and hands `takeOutputs()` (or
/// `flush(to:)`) to a `FaceBackend`; it drains `takeAlarmEvents()` for the history.
///
/// A press with nothing sounding changes nothing in the engine: a stray press must never
/// silence an alarm before it is raised, and the LED already shows the state (heartbeat,
/// searching, fault, snoozed). It is reported as `.nothingToSilence` so the log shows the
/// button works. The one exception is a long press configured as "snooze all", which is a
/// deliberate 3 s hold and means "I know, for N hours" even before anything sounds (before a
/// meal); it never covers urgent low, signal loss or faults.
///
/// At start the face plays the start-up chirp, unless a restored alarm is sounding: then the
/// alarm sounds at once instead (the alarm proves the buzzer works; nothing may delay it).
public struct ApplianceFace<Source: FaceAlarmSource> {
    public enum Output: Hashable, Sendable, CustomStringConvertible {
        /// A line write or gesture for the backend.
        case face(TimedFaceOutput)
        /// A double press: the caller starts the export (history issue); for now it logs it.
        case exportRequested(at: MonotonicInstant)
        /// A gesture that had nothing to act on (nothing sounding, or a test refused).
        case nothingToSilence(ButtonGesture, at: MonotonicInstant)

        public var description: String {
            switch self {
            case let .face(output): "\(output)"
            case let .exportRequested(at): "\(at) export requested"
            case let .nothingToSilence(gesture, at): "\(at) \(gesture) press: nothing to silence"
            }
        }
    }

    public private(set) var alarms: Source
    public private(set) var face: AlarmFace
    public var actions: ButtonActions
    private var outputs: [Output] = []

    public init(alarms: Source, drive: BuzzerSequencer.Drive, actions: ButtonActions = ButtonActions(),
                at now: MonotonicInstant, buttonPressedAtBoot: Bool = false) {
        self.alarms = alarms
        self.actions = actions
        face = AlarmFace(drive: drive, bootedAt: now, buttonPressedAtBoot: buttonPressedAtBoot, showing: alarms.engine.pattern)
        face.startSelfTest(at: now)
        collect()
    }

    public var nextDeadline: MonotonicInstant? { earliest(alarms.nextDeadline, face.nextDeadline) }

    public mutating func takeOutputs() -> [Output] {
        defer { outputs = [] }
        return outputs
    }

    /// Applies every face output to `backend`; returns the outputs that are not line writes
    /// (export requests, ignored presses) for the caller to act on or log.
    @discardableResult
    public mutating func flush(to backend: some FaceBackend) -> [Output] {
        var rest: [Output] = []
        for output in takeOutputs() {
            if case let .face(timed) = output { backend.apply(timed.output, at: timed.at) } else { rest.append(output) }
        }
        return rest
    }

    /// Events for the history (raised, snoozed, acknowledged, escalated, cleared).
    public mutating func takeAlarmEvents() -> [AlarmEvent] { alarms.takeEvents() }

    // MARK: Inputs

    /// Changes the alarms (a reading, a fault, a command) and shows the result at once.
    public mutating func update<R>(at now: MonotonicInstant, _ change: (inout Source) throws -> R) rethrows -> R {
        handleDeadline(at: now)
        let result = try change(&alarms)
        face.show(alarms.engine.pattern, at: now)
        collect()
        return result
    }

    public mutating func receive(_ input: AlarmEngine.Input, at now: MonotonicInstant) {
        update(at: now) { $0.receive(input, at: now) }
    }

    public mutating func receive(_ edge: ButtonEdge, at now: MonotonicInstant) {
        handleDeadline(at: now)
        face.receive(edge, at: now)
        collect()
    }

    /// `vigil alarm test [pattern]`; false when refused because an alarm sounds.
    @discardableResult
    public mutating func playTest(_ pattern: AlarmTestPattern?, at now: MonotonicInstant) -> Bool {
        handleDeadline(at: now)
        defer { collect() }
        return face.playTest(pattern, at: now)
    }

    /// Serves the engine's and the face's deadlines up to `now`, in time order.
    public mutating func handleDeadline(at now: MonotonicInstant) {
        var steps = 0
        while let due = nextDeadline, due <= now, steps < 100_000 {
            steps += 1
            if let engineDue = alarms.nextDeadline, engineDue <= due {
                alarms.handleDeadline(at: due)
                face.show(alarms.engine.pattern, at: due)
            }
            face.handleDeadline(at: due)
            collect()
        }
    }

    // MARK: Gestures

    /// Moves the face's outputs into ours, acting on gestures as they come (an action changes
    /// the pattern, which may produce more outputs).
    private mutating func collect() {
        while true {
            let batch = face.takeTimedOutputs()
            if batch.isEmpty { return }
            for timed in batch {
                outputs.append(.face(timed))
                if case let .gesture(event) = timed.output { act(on: event) }
            }
        }
    }

    private mutating func act(on event: ButtonEvent) {
        let now = event.at
        let playing = alarms.engine.playing
        switch event.gesture {
        case .short:
            guard let playing else { return ignored(event) }
            alarms.receive(.snooze(playing.kind, for: actions.snooze(for: playing.kind)), at: now)
        case .long:
            switch actions.longPress {
            case .acknowledge:
                guard let playing else { return ignored(event) }
                alarms.receive(.acknowledge(playing.kind), at: now)
            case let .snoozeAll(duration):
                alarms.receive(.snoozeAll(for: duration), at: now)
                if let playing, !playing.kind.isCoveredBySnoozeAll {
                    alarms.receive(.snooze(playing.kind, for: actions.snooze(for: playing.kind)), at: now)
                }
            }
        case .double:
            outputs.append(.exportRequested(at: now))
        case .heldAtBoot:
            if !face.playTest(nil, at: now) { ignored(event) }
        }
        face.show(alarms.engine.pattern, at: now)
    }

    private mutating func ignored(_ event: ButtonEvent) {
        outputs.append(.nothingToSilence(event.gesture, at: event.at))
    }
}

extension ApplianceFace: Sendable where Source: Sendable {}

extension ApplianceFace where Source == ApplianceAlarms {
    /// An appliance event (readings, Bluetooth state) into the alarms, shown at once.
    public mutating func observe(_ event: ApplianceEvent, monotonicNow: MonotonicInstant, wallNow: WallClockTime) {
        update(at: monotonicNow) { $0.observe(event, monotonicNow: monotonicNow, wallNow: wallNow) }
    }
}
