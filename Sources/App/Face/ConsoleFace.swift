import Alarms
import Clocks

/// The console face's sans-IO half, which lets `vigil demo` show the buzzer, LED and
/// button in a terminal with a key for the button: it keeps what the
/// buzzer and LED lines are at and the status text, renders them as ONE terminal line, and
/// turns keys into raw button edges on the virtual clock.
///
/// A key is not a gesture: it becomes a press and, later, a release, and those edges go
/// through the real `ButtonClassifier` in `AlarmFace`, so the demo exercises the same path as
/// the GPIO button (debounce, long-press timing, the double-press window).
///
/// - space or `b`: a short press (released `shortHold` = 150 ms later);
/// - `l`: a long press (released `longHold` = 3.2 s later, past `ButtonClassifier.longPress`);
/// - `d`: a double press (two short presses starting `doubleSpacing` = 250 ms apart, well
///   inside `ButtonClassifier.doublePressWindow`).
///
/// A key while an earlier key's edges are still pending is ignored: edges must alternate
/// pressed/released as a real contact does, and a person cannot press a held button again.
public struct ConsoleFace: Sendable {
    /// A made-up edge and when it is due.
    public struct ScheduledEdge: Hashable, Sendable, CustomStringConvertible {
        public var edge: ButtonEdge
        public var at: MonotonicInstant

        public init(_ edge: ButtonEdge, at: MonotonicInstant) {
            self.edge = edge
            self.at = at
        }

        public var description: String { "\(at) \(edge)" }
    }

    public static let shortHold: Duration = .milliseconds(150)
    public static let longHold: Duration = .milliseconds(3200)
    public static let doubleSpacing: Duration = .milliseconds(250)

    /// The keys hint, as the status line shows it.
    public static let keysHint = "keys: [space] press  [l] long  [d] double"

    /// Box-drawing and music symbols when the terminal speaks UTF-8, plain ASCII otherwise.
    public let unicode: Bool
    /// Whether keys can reach us (stdin is a terminal): the hint is shown only then.
    public var hasKeyboard: Bool

    public private(set) var buzzer: LineLevel = .low
    public private(set) var buzzerToneHertz: Int?
    public private(set) var led: LineLevel = .low
    /// The session's person-readable line (alarms, snoozes, the last gesture); "" = none yet.
    public private(set) var status = ""
    /// The pattern last shown by `show(pattern:)`, nil before the first.
    public private(set) var pattern: AlarmPattern?
    private var pending: [ScheduledEdge] = []

    public init(unicode: Bool, hasKeyboard: Bool) {
        self.unicode = unicode
        self.hasKeyboard = hasKeyboard
    }

    // MARK: Lines and text

    /// Takes a line write; a gesture returns the line to print above the status line (the
    /// person sees the button was understood), anything else nil.
    public mutating func apply(_ output: FaceOutput) -> String? {
        switch output {
        case let .buzzer(level, tone):
            buzzer = level
            buzzerToneHertz = level == .high ? tone : nil
            return nil
        case let .led(level):
            led = level
            return nil
        case let .gesture(event):
            return "button: \(event.gesture) press"
        }
    }

    /// Sets the status text; returns the plain line for a log when it changed (nil when the
    /// same text comes again, which the session may send after every step).
    public mutating func show(status: String) -> String? {
        guard status != self.status else { return nil }
        self.status = status
        return status.isEmpty ? nil : "face: \(status)"
    }

    /// Sets the pattern the face shows; returns the plain line for a log when it changed. This
    /// is what a non-terminal output prints instead of every buzzer pulse.
    public mutating func show(pattern: AlarmPattern) -> String? {
        guard pattern != self.pattern else { return nil }
        self.pattern = pattern
        return "face: " + Self.summary(of: pattern)
    }

    /// "urgent-low (high) sounding", "all well", …: what a pattern means, in words.
    public static func summary(of pattern: AlarmPattern) -> String {
        switch pattern.buzzer {
        case let .bursts(priority, escalated, kind):
            return "\(kind) (\(priority)) sounding" + (escalated ? ", escalated" : "")
        case .silent:
            switch pattern.led {
            case .heartbeat: return "all well"
            case .searching: return "searching: a transmitter is not heard"
            case .fault: return "appliance fault"
            case .snoozed: return "alarm snoozed"
            case let .alarm(priority): return "\(priority) alarm, buzzer silent"
            }
        }
    }

    /// The one status line: buzzer, LED, the pattern in words, the status text, the keys.
    /// `columns` cuts it to the terminal's width, since a line that wraps cannot be redrawn in
    /// place with `\r`.
    public func statusLine(columns: Int? = nil) -> String {
        let buzzerCell: String, ledCell: String
        if unicode {
            buzzerCell = buzzer == .high ? "♪ BEEP" : "  ····"
            ledCell = led == .high ? "● LED" : "○ led"
        } else {
            buzzerCell = buzzer == .high ? "# BEEP" : "  ...."
            ledCell = led == .high ? "* LED" : "o led"
        }
        let separator = unicode ? " · " : " - "
        var words: [String] = []
        if let pattern { words.append(Self.summary(of: pattern)) }
        if !status.isEmpty { words.append(status) }
        if hasKeyboard { words.append(Self.keysHint) }
        let line = buzzerCell + "  " + ledCell + "   " + words.joined(separator: separator)
        guard let columns, columns > 0, line.count > columns else { return line }
        // One column short of the edge: some terminals wrap when the last column is written.
        return String(line.prefix(max(0, columns - 1)))
    }

    // MARK: Keys

    /// Whether a key's edges are still to come (a new key is ignored meanwhile).
    public var isPressing: Bool { !pending.isEmpty }

    /// Turns keys read at `now` into scheduled edges; returns the gestures' names for the keys
    /// it took (for a log), in order. Unknown keys and keys during a press are ignored.
    @discardableResult
    public mutating func receive(keys: [UInt8], at now: MonotonicInstant) -> [ButtonGesture] {
        var taken: [ButtonGesture] = []
        for key in keys where pending.isEmpty {
            switch key {
            case UInt8(ascii: " "), UInt8(ascii: "b"), UInt8(ascii: "B"):
                press(at: now, holding: Self.shortHold)
                taken.append(.short)
            case UInt8(ascii: "l"), UInt8(ascii: "L"):
                press(at: now, holding: Self.longHold)
                taken.append(.long)
            case UInt8(ascii: "d"), UInt8(ascii: "D"):
                press(at: now, holding: Self.shortHold)
                press(at: now + Self.doubleSpacing, holding: Self.shortHold)
                taken.append(.double)
            default:
                continue
            }
        }
        return taken
    }

    /// When `dueEdges` next has something.
    public var nextDeadline: MonotonicInstant? { pending.first?.at }

    /// The made-up edges due by `now`, in time order.
    public mutating func dueEdges(at now: MonotonicInstant) -> [ScheduledEdge] {
        let count = pending.prefix { $0.at <= now }.count
        defer { pending.removeFirst(count) }
        return Array(pending.prefix(count))
    }

    private mutating func press(at start: MonotonicInstant, holding hold: Duration) {
        pending.append(ScheduledEdge(.pressed, at: start))
        pending.append(ScheduledEdge(.released, at: start + hold))
    }
}
