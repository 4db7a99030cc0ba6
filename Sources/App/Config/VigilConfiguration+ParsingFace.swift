extension VigilConfiguration {
    /// The `[face]` keys, in the order the packaged file lists them.
    public static let faceKeys = [
        "backend", "board", "chip", "buzzer-line", "led-line", "button-line", "buzzer", "tone-hz",
        "buzzer-active-low", "led-active-low", "long-press", "snooze-all-hours",
    ]
}

extension SchemaReader {
    /// `[face]`, checked against its board profile so that a face that cannot work (the
    /// generic board with no lines, two roles on one line) stops Vigil at the line to edit.
    mutating func readFace(_ table: TOML.Table, at sectionPosition: TOML.Position) -> VigilConfiguration.Face {
        typealias Face = VigilConfiguration.Face
        let section = "[face]"
        var face = Face()
        if let backend = choice("backend", Face.BackendName.self, in: table, section) { face.backend = backend }
        var profile = BoardProfile.builtIn(named: face.board)
        if let (name, value) = string("board", in: table, section) {
            profile = BoardProfile.builtIn(named: name)
            if profile != nil {
                face.board = name
            } else {
                let names = BoardProfile.builtInNames
                let hint = Spelling.closest(to: name, among: names).map { " (did you mean \(TOML.quoted($0))?)" } ?? ""
                fail(.invalidValue(key: "board", section: section,
                                   reason: "\(TOML.quoted(name)) is not one of \(names.joined(separator: ", "))\(hint)"),
                     at: value.position)
            }
        }
        if let (text, value) = string("chip", in: table, section), !text.isEmpty {
            if text.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" }) {
                fail(.invalidValue(key: "chip", section: section,
                                   reason: "\(TOML.quoted(text)) is not a chip name like \"gpiochip0\" (`gpiodetect` lists them)"),
                     at: value.position)
            } else {
                face.chip = text
            }
        }
        for role in FaceSetup.Role.allCases {
            guard let (offset, _) = integer(role.configurationKey, in: table, section, range: 0...BoardProfile.maximumLineOffset) else { continue }
            switch role {
            case .buzzer: face.buzzerLine = offset
            case .led: face.ledLine = offset
            case .button: face.buttonLine = offset
            }
        }
        if let kind = choice("buzzer", Face.BuzzerKind.self, in: table, section) { face.buzzer = kind }
        if let tone = table["tone-hz"] {
            // Range-checked here rather than by `integer`, so that the message gives the real
            // bounds and the 0 that means "a tone per priority".
            if let (hertz, _) = integer("tone-hz", in: table, section, range: Int.min...Int.max), hertz != 0 {
                if !Face.toneRange.contains(hertz) {
                    fail(.invalidValue(key: "tone-hz", section: section,
                                       reason: "\(hertz) Hz is out of range: it must be \(Face.toneRange.lowerBound) to \(Face.toneRange.upperBound), or 0 for a tone per priority"),
                         at: tone.position)
                } else if face.buzzer == .active {
                    // A person who sets a tone expects to hear it; an active buzzer has its own.
                    fail(.invalidValue(key: "tone-hz", section: section,
                                       reason: "a tone only applies to buzzer = \"passive\" (an active buzzer makes its own); set tone-hz = 0 or buzzer = \"passive\""),
                         at: tone.position)
                } else {
                    face.toneHertz = hertz
                }
            }
        }
        if let flag = boolean("buzzer-active-low", in: table, section) { face.buzzerActiveLow = flag }
        if let flag = boolean("led-active-low", in: table, section) { face.ledActiveLow = flag }
        if let action = choice("long-press", FaceSetup.LongPressAction.self, in: table, section) { face.longPress = action }
        if let (hours, _) = integer("snooze-all-hours", in: table, section, range: 1...Face.maximumSnoozeAllHours) {
            face.snoozeAllHours = hours
        }
        if let profile { checkLines(face, on: profile, table, at: sectionPosition) }
        return face
    }

    /// Errors for a face the board cannot carry; warnings for lines the board does not list
    /// as safe (they may be right for this person's hardware, so they do not stop Vigil).
    private mutating func checkLines(_ face: VigilConfiguration.Face, on profile: BoardProfile, _ table: TOML.Table,
                                     at sectionPosition: TOML.Position) {
        let section = "[face]"
        func position(of key: String) -> TOML.Position? { table[key]?.position }
        do throws(FaceSetup.Problem) {
            _ = try face.setup(on: profile)
        } catch {
            switch error {
            case .unknownBoard:
                break  // reported at `board` already
            case .noLine:
                fail(.invalidValue(key: "board", section: section, reason: error.description),
                     at: position(of: "board") ?? sectionPosition)
            case .sharedLine(_, let first, let second):
                let at = position(of: second.configurationKey) ?? position(of: first.configurationKey) ?? sectionPosition
                fail(.invalidValue(key: table[second.configurationKey] != nil ? second.configurationKey : first.configurationKey,
                                   section: section, reason: error.description),
                     at: at)
            }
        }
        guard face.backend == .gpio else { return }
        for role in FaceSetup.Role.allCases {
            guard let offset = face.line(for: role), profile.isOutsideSafeLines(offset),
                let at = position(of: role.configurationKey) else { continue }
            let safe = profile.safeLines.map(String.init).joined(separator: ", ")
            warnings.append(ConfigurationError(
                .invalidValue(key: role.configurationKey, section: section,
                              reason: "GPIO \(offset) is not one of board \(TOML.quoted(profile.name))'s safe lines (\(safe)): it may belong to I2C, SPI, the UART or audio; used anyway"),
                at: at))
        }
    }
}
