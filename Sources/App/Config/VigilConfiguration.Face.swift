extension VigilConfiguration {
    /// `[face]`: the buzzer, LED and button, and the board they are wired to.
    /// `setup()` resolves it with the board profile into the `FaceSetup` a backend drives.
    public struct Face: Equatable, Sendable {
        /// `backend`
        public enum BackendName: String, CaseIterable, Sendable {
            case gpio, console, none
        }

        /// `buzzer`
        public enum BuzzerKind: String, CaseIterable, Sendable {
            case active, passive
        }

        /// The longest "snooze all" the file accepts: a night (xDrip+ PR #2406 asks for 12 h).
        public static let maximumSnoozeAllHours = 12
        /// `tone-hz` bounds: below 100 Hz a piezo barely sounds; above 5 kHz toggling a line
        /// from user space costs more CPU than a Pi Zero should spend on it.
        public static let toneRange = 100...5000

        /// `board`: a compiled-in profile name (`BoardProfile.builtInNames`).
        public var board: String
        /// `chip`: a chip name or path used instead of the board's (its label is not checked);
        /// nil (`""`) = the board's.
        public var chip: String?
        /// `buzzer-line`, `led-line`, `button-line`: line offsets used instead of the board's.
        public var buzzerLine: Int?
        public var ledLine: Int?
        public var buttonLine: Int?
        /// `buzzer`
        public var buzzer: BuzzerKind
        /// `tone-hz`: one tone for every alarm on a passive buzzer; nil (`0`) = a tone per
        /// priority.
        public var toneHertz: Int?
        /// `led-active-low`, `buzzer-active-low`
        public var ledActiveLow: Bool
        public var buzzerActiveLow: Bool
        /// `long-press`
        public var longPress: FaceSetup.LongPressAction
        /// `snooze-all-hours`: 1 ... `maximumSnoozeAllHours`.
        public var snoozeAllHours: Int
        /// `backend`
        public var backend: BackendName

        public init(
            board: String = "pi-zero-2w", chip: String? = nil, buzzerLine: Int? = nil, ledLine: Int? = nil,
            buttonLine: Int? = nil, buzzer: BuzzerKind = .active, toneHertz: Int? = nil,
            ledActiveLow: Bool = false, buzzerActiveLow: Bool = false,
            longPress: FaceSetup.LongPressAction = .snoozeAll, snoozeAllHours: Int = 2, backend: BackendName = .gpio
        ) {
            self.board = board
            self.chip = chip
            self.buzzerLine = buzzerLine
            self.ledLine = ledLine
            self.buttonLine = buttonLine
            self.buzzer = buzzer
            self.toneHertz = toneHertz
            self.ledActiveLow = ledActiveLow
            self.buzzerActiveLow = buzzerActiveLow
            self.longPress = longPress
            self.snoozeAllHours = snoozeAllHours
            self.backend = backend
        }

        /// The line configured for `role`, if any.
        public func line(for role: FaceSetup.Role) -> Int? {
            switch role {
            case .buzzer: buzzerLine
            case .led: ledLine
            case .button: buttonLine
            }
        }

        /// Resolves against the compiled-in board profile `board`. Never throws for a
        /// configuration that came from `VigilConfiguration(parsing:...)`, which has already
        /// reported these problems at their lines.
        public func setup() throws(FaceSetup.Problem) -> FaceSetup {
            guard let profile = BoardProfile.builtIn(named: board) else { throw .unknownBoard(board) }
            return try setup(on: profile)
        }

        /// Resolves against `profile`: this section's overrides, else the board's defaults.
        /// The console and null backends need no lines, so a board without defaults is only
        /// an error for the GPIO backend.
        public func setup(on profile: BoardProfile) throws(FaceSetup.Problem) -> FaceSetup {
            let drive: FaceSetup.BuzzerDrive = buzzer == .active ? .active : .passive(toneHertz: toneHertz)
            let backend: FaceSetup.Backend
            switch self.backend {
            case .console: backend = .console
            case .none: backend = .none
            case .gpio: backend = .gpio(try lines(on: profile))
            }
            return FaceSetup(backend: backend, buzzerDrive: drive, longPress: longPress,
                             snoozeAllFor: .seconds(snoozeAllHours * 3600))
        }

        private func lines(on profile: BoardProfile) throws(FaceSetup.Problem) -> FaceSetup.GPIOLines {
            let defaults: [FaceSetup.Role: BoardProfile.Line?] = [.buzzer: profile.buzzer, .led: profile.led, .button: profile.button]
            var offsets: [FaceSetup.Role: Int] = [:]
            for role in FaceSetup.Role.allCases {
                offsets[role] = line(for: role) ?? defaults[role]??.offset
            }
            let missing = FaceSetup.Role.allCases.filter { offsets[$0] == nil }
            if !missing.isEmpty { throw .noLine(board: profile.name, roles: missing) }
            let roles = FaceSetup.Role.allCases
            for (i, first) in roles.enumerated() {
                for second in roles[(i + 1)...] where offsets[first] == offsets[second] {
                    throw .sharedLine(offset: offsets[first]!, first: first, second: second)
                }
            }
            let chip = self.chip.map { BoardProfile.ChipSelector(label: nil, candidates: [$0]) } ?? profile.chip
            return FaceSetup.GPIOLines(
                board: profile.name, chip: chip,
                buzzer: .init(offset: offsets[.buzzer]!, activeLow: buzzerActiveLow),
                led: .init(offset: offsets[.led]!, activeLow: ledActiveLow),
                button: offsets[.button]!)
        }
    }
}
