import Clocks

/// The appliance's face, composed: buzzer, LED and button on one virtual clock. It owns a
/// `BuzzerSequencer`, an `LEDSequencer`, a `ButtonClassifier` and, while a test plays, a
/// `SelfTestPlayer`, and merges their edges into one time-ordered stream of `FaceOutput`s. Sans-IO:
/// inputs carry `now`, `nextDeadline` says when to wake.
///
/// Rules, on purpose:
/// - `show(_:at:)` acts only when the pattern changes, so the shell may call it after every
///   engine step without restarting a rhythm.
/// - A test (the start-up chirp, `vigil alarm test`) owns both lines while it plays; the pattern
///   shown meanwhile is remembered and resumes when the test ends.
/// - A test never masks an alarm: a sounding pattern shown during a test ends the test at
///   once, and a test asked for while an alarm sounds is refused (the alarm itself proves the
///   buzzer works, and nothing may delay it).
/// - The buzzer line is low for at least `BuzzerRhythm.minimumGap` between a test's last pulse
///   and an alarm's first, so the two never merge into one long tone.
/// - Outputs are written only when a line changes level (or a passive buzzer its tone), so
///   the backend never sees a redundant write.
public struct AlarmFace: Sendable {
    public let drive: BuzzerSequencer.Drive
    /// The pattern last asked for by `show(_:at:)`.
    public private(set) var pattern: AlarmPattern
    private var buzzer: BuzzerSequencer
    private var led = LEDSequencer()
    private var button: ButtonClassifier
    /// Non-nil while a test owns the lines.
    private var test: SelfTestPlayer?
    /// After a test (or a test cut short), the pattern's buzzer waits until then for the gap.
    private var buzzerResumesAt: MonotonicInstant?

    // What the lines are actually at: the sequencers restart after a test, so they cannot say.
    public private(set) var buzzerLine: LineLevel = .low
    private var buzzerTone: Int?
    private var buzzerFellAt: MonotonicInstant?
    public private(set) var ledLine: LineLevel = .low
    private var outputs: [TimedFaceOutput] = []

    /// A face at boot, lines low, showing `pattern`. `buttonPressedAtBoot` is the button line
    /// read once at start (held at boot is a gesture).
    public init(drive: BuzzerSequencer.Drive, bootedAt now: MonotonicInstant, buttonPressedAtBoot: Bool = false,
                showing pattern: AlarmPattern = .allWell) {
        self.drive = drive
        self.pattern = pattern
        buzzer = BuzzerSequencer(drive: drive)
        button = ButtonClassifier(bootedAt: now, pressedAtBoot: buttonPressedAtBoot)
        startPattern(at: now)
    }

    /// True while the start-up chirp or a pattern test owns the lines.
    public var isTesting: Bool { test != nil }

    /// Whether the shown pattern sounds the buzzer.
    public var isSounding: Bool { pattern.buzzer != .silent }

    public var nextDeadline: MonotonicInstant? {
        if let test { return earliest(test.nextDeadline, button.nextDeadline) }
        return earliest(buzzerResumesAt, buzzer.nextDeadline, led.nextDeadline, button.nextDeadline)
    }

    /// Every output since the last call, in time order.
    public mutating func takeOutputs() -> [FaceOutput] { takeTimedOutputs().map(\.output) }

    /// Every output since the last call with the instant it is due, in time order.
    public mutating func takeTimedOutputs() -> [TimedFaceOutput] {
        defer { outputs = [] }
        return outputs
    }

    // MARK: Inputs

    /// Shows `pattern` from `now` on; the same pattern again changes nothing.
    public mutating func show(_ pattern: AlarmPattern, at now: MonotonicInstant) {
        handleDeadline(at: now)
        guard pattern != self.pattern else { return }
        self.pattern = pattern
        if test != nil {
            // A test plays on unless an alarm must sound: then it is cut at once.
            guard pattern.buzzer != .silent else { return }
            test = nil
            startPattern(at: now)
        } else if buzzerResumesAt != nil {
            led.show(pattern.led, at: now)
            collectSequencers()
        } else if pattern.buzzer != .silent, buzzer.sounding == .silent, let start = gapEndsAt(from: now), start > now {
            // Sequencers restarted after a test do not know the line's last fall: keep the gap here.
            buzzerResumesAt = start
            led.show(pattern.led, at: now)
            collectSequencers()
        } else {
            buzzer.play(pattern.buzzer, at: now)
            buzzer.handleDeadline(at: now)  // a burst that may start now starts now
            led.show(pattern.led, at: now)
            collectSequencers()
        }
    }

    /// When the buzzer line will have been low for the minimum gap (nil: it never fell).
    private func gapEndsAt(from now: MonotonicInstant) -> MonotonicInstant? {
        buzzerFellAt.map { max(now, $0 + BuzzerRhythm.minimumGap) }
    }

    /// A raw button edge; gestures come out as `.gesture` outputs when decided.
    public mutating func receive(_ edge: ButtonEdge, at now: MonotonicInstant) {
        handleDeadline(at: now)
        button.receive(edge, at: now)
        collectGestures()
    }

    /// The start-up self-test: a chirp and an LED blink, then the pattern resumes. Refused
    /// (false) while an alarm sounds.
    @discardableResult
    public mutating func startSelfTest(at now: MonotonicInstant) -> Bool {
        let drive = self.drive
        return beginTest(at: now) { SelfTestPlayer(startupChirpAt: $0, drive: drive) }
    }

    /// `vigil alarm test [pattern]`: one pattern, or every pattern loudest first (nil), then the
    /// shown pattern resumes. Refused (false) while an alarm sounds.
    @discardableResult
    public mutating func playTest(_ pattern: AlarmTestPattern?, at now: MonotonicInstant) -> Bool {
        let patterns = pattern.map { [$0] } ?? AlarmTestPattern.all, drive = self.drive
        return beginTest(at: now) { SelfTestPlayer(testing: patterns, at: $0, drive: drive) }
    }

    /// Serves every deadline up to `now` in time order, so outputs come out ordered.
    public mutating func handleDeadline(at now: MonotonicInstant) {
        var steps = 0
        while let due = nextDeadline, due <= now, steps < 100_000 {
            steps += 1
            step(at: due)
        }
    }

    // MARK: Machinery

    private mutating func step(at instant: MonotonicInstant) {
        button.handleDeadline(at: instant)
        collectGestures()
        if var running = test {
            running.handleDeadline(at: instant)
            for edge in running.takeBuzzerTransitions() { writeBuzzer(edge.level, tone: edge.toneHertz, at: edge.at) }
            for edge in running.takeLEDTransitions() { writeLED(edge.level, at: edge.at) }
            test = running
            if running.isFinished {
                test = nil
                startPattern(at: instant)
            }
            return
        }
        if let resume = buzzerResumesAt, resume <= instant {
            buzzerResumesAt = nil
            buzzer.play(pattern.buzzer, at: resume)
        }
        buzzer.handleDeadline(at: instant)
        led.handleDeadline(at: instant)
        collectSequencers()
    }

    private mutating func beginTest(at now: MonotonicInstant, _ make: (MonotonicInstant) -> SelfTestPlayer) -> Bool {
        handleDeadline(at: now)
        guard !isSounding else { return false }
        // The sequencers stop here: whatever they had on is switched off, and they restart
        // from scratch when the test ends.
        buzzer = BuzzerSequencer(drive: drive)
        led = LEDSequencer()
        buzzerResumesAt = nil
        writeBuzzer(.low, tone: nil, at: now)
        let start = gapEndsAt(from: now) ?? now
        if start > now { writeLED(.low, at: now) }
        var player = make(start)
        player.handleDeadline(at: now)
        for edge in player.takeBuzzerTransitions() { writeBuzzer(edge.level, tone: edge.toneHertz, at: edge.at) }
        for edge in player.takeLEDTransitions() { writeLED(edge.level, at: edge.at) }
        test = player
        return true
    }

    /// Fresh sequencers take over the lines at `now`: the LED at once, the buzzer once the
    /// line has been low for the minimum gap.
    private mutating func startPattern(at now: MonotonicInstant) {
        buzzer = BuzzerSequencer(drive: drive)
        led = LEDSequencer()
        writeBuzzer(.low, tone: nil, at: now)
        led.show(pattern.led, at: now)
        _ = led.takeTransitions()
        writeLED(led.level, at: now)
        let start = gapEndsAt(from: now) ?? now
        if start > now, pattern.buzzer != .silent {
            buzzerResumesAt = start
        } else {
            buzzerResumesAt = nil
            buzzer.play(pattern.buzzer, at: now)
            buzzer.handleDeadline(at: now)
            collectSequencers()
        }
    }

    private mutating func collectSequencers() {
        let buzzerEdges = buzzer.takeTransitions(), ledEdges = led.takeTransitions()
        // Merge by time; at one instant the buzzer goes first (it is what wakes people).
        var b = 0, l = 0
        while b < buzzerEdges.count || l < ledEdges.count {
            if l == ledEdges.count || (b < buzzerEdges.count && buzzerEdges[b].at <= ledEdges[l].at) {
                writeBuzzer(buzzerEdges[b].level, tone: buzzerEdges[b].toneHertz, at: buzzerEdges[b].at)
                b += 1
            } else {
                writeLED(ledEdges[l].level, at: ledEdges[l].at)
                l += 1
            }
        }
    }

    private mutating func collectGestures() {
        for event in button.takeEvents() { outputs.append(TimedFaceOutput(.gesture(event), at: event.at)) }
    }

    private mutating func writeBuzzer(_ level: LineLevel, tone: Int?, at instant: MonotonicInstant) {
        let tone = level == .high ? tone : nil
        guard level != buzzerLine || tone != buzzerTone else { return }
        if level == .low { buzzerFellAt = instant }
        buzzerLine = level
        buzzerTone = tone
        outputs.append(TimedFaceOutput(.buzzer(level, toneHertz: tone), at: instant))
    }

    private mutating func writeLED(_ level: LineLevel, at instant: MonotonicInstant) {
        guard level != ledLine else { return }
        ledLine = level
        // A write undoing the last one at the same instant cancels it: a test ending with the
        // LED off just as the heartbeat turns it on is no edge, not a zero-length flicker.
        if let index = outputs.lastIndex(where: { if case .led = $0.output { true } else { false } }),
           outputs[index].at == instant {
            outputs.remove(at: index)
        } else {
            outputs.append(TimedFaceOutput(.led(level), at: instant))
        }
    }
}
