/// The appliance's face (buzzer, LED, button) resolved from `[face]` and the chosen board
/// profile: everything a GPIO, console or null backend needs, with no "use the board's
/// default" left to decide.
public struct FaceSetup: Hashable, Sendable {
    /// Which face to drive.
    public enum Backend: Hashable, Sendable {
        /// Real lines of a GPIO chip (the kernel's v2 character device, docs/gpio-uapi.md).
        case gpio(GPIOLines)
        /// Buzzer, LED and button drawn in the terminal (`vigil demo`).
        case console
        /// No face at all: alarms only reach the log and the event stream.
        case none
    }

    /// The lines of the GPIO backend.
    public struct GPIOLines: Hashable, Sendable {
        /// The board profile the lines came from (or were checked against), for messages.
        public var board: String
        public var chip: BoardProfile.ChipSelector
        public var buzzer: OutputLine
        public var led: OutputLine
        /// The button's line. The button closes to ground, so it is read with the internal
        /// pull-up bias and pressed means low.
        public var button: Int

        public init(board: String, chip: BoardProfile.ChipSelector, buzzer: OutputLine, led: OutputLine, button: Int) {
            self.board = board
            self.chip = chip
            self.buzzer = buzzer
            self.led = led
            self.button = button
        }
    }

    /// An output line, and whether "on" is the low level (a buzzer module or LED wired to 3V3
    /// and switched to ground by the pin).
    public struct OutputLine: Hashable, Sendable {
        public var offset: Int
        public var activeLow: Bool

        public init(offset: Int, activeLow: Bool = false) {
            self.offset = offset
            self.activeLow = activeLow
        }
    }

    /// How the buzzer makes sound.
    public enum BuzzerDrive: Hashable, Sendable {
        /// An active buzzer has its own oscillator: the line on is sound.
        case active
        /// A passive buzzer (a bare piezo or magnetic transducer) needs the line toggled at a
        /// tone. nil: the per-priority tones of `BuzzerRhythm.toneHertz(for:)`.
        case passive(toneHertz: Int?)
    }

    /// What a long press (3 s) of the button does.
    public enum LongPressAction: String, CaseIterable, Hashable, Sendable {
        /// Snooze every alarm for `snoozeAllFor` (urgent low excepted: the engine never lets
        /// "snooze all" silence it).
        case snoozeAll = "snooze-all"
        /// Acknowledge the sounding alarms (stop the sound and escalation until they change).
        case acknowledge
    }

    public var backend: Backend
    public var buzzerDrive: BuzzerDrive
    public var longPress: LongPressAction
    /// How long "snooze all" lasts.
    public var snoozeAllFor: Duration

    public init(backend: Backend, buzzerDrive: BuzzerDrive = .active, longPress: LongPressAction = .snoozeAll,
                snoozeAllFor: Duration = .seconds(2 * 3600)) {
        self.backend = backend
        self.buzzerDrive = buzzerDrive
        self.longPress = longPress
        self.snoozeAllFor = snoozeAllFor
    }

    /// The GPIO lines, when the backend has them.
    public var gpioLines: GPIOLines? {
        if case .gpio(let lines) = backend { lines } else { nil }
    }
}

extension FaceSetup {
    /// The three lines of the face, in the order messages list them.
    public enum Role: String, CaseIterable, Hashable, Sendable {
        case buzzer, led, button

        /// The `[face]` key that overrides the board's line.
        public var configurationKey: String { "\(rawValue)-line" }
    }

    /// Why `[face]` and a board do not make a working GPIO face.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// `board` names no compiled-in profile.
        case unknownBoard(String)
        /// The board has no default for these lines and the configuration gives none.
        case noLine(board: String, roles: [Role])
        /// Two roles ended up on one line.
        case sharedLine(offset: Int, first: Role, second: Role)

        public var description: String {
            switch self {
            case .unknownBoard(let name):
                "unknown board \(TOML.quoted(name)); known boards: \(BoardProfile.builtInNames.joined(separator: ", "))"
            case .noLine(let board, let roles):
                "board \(TOML.quoted(board)) has no default line for the " + Self.list(roles.map(\.rawValue))
                    + ": set " + Self.list(roles.map(\.configurationKey))
                    + " in [face] (`gpioinfo` lists the lines), or choose a board profile"
            case .sharedLine(let offset, let first, let second):
                "GPIO \(offset) cannot be both the \(first.rawValue) and the \(second.rawValue) line"
            }
        }

        /// "a", "a and b", "a, b and c".
        private static func list(_ words: [String]) -> String {
            guard let last = words.last, words.count > 1 else { return words.first ?? "" }
            return words.dropLast().joined(separator: ", ") + " and " + last
        }
    }
}
