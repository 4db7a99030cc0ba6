import Testing
@testable import App

/// `[face]`: every key read, each bad value rejected at its line and column, the board's
/// defaults checked, and warnings (not errors) for lines the board does not call safe.
@Suite struct VigilConfigurationParsingFaceTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: [])
    }

    func at(_ line: Int, _ column: Int) -> TOML.Position { TOML.Position(line: line, column: column) }

    @Test func readsEveryKey() throws {
        let config = try parse("""
            [face]
            backend = "gpio"
            board = "pi-5"
            chip = "/dev/gpiochip0"
            buzzer-line = 26
            led-line = 24
            button-line = 23
            buzzer = "passive"
            tone-hz = 2700
            buzzer-active-low = true
            led-active-low = true
            long-press = "acknowledge"
            snooze-all-hours = 12
            """)
        #expect(config.face == VigilConfiguration.Face(
            board: "pi-5", chip: "/dev/gpiochip0", buzzerLine: 26, ledLine: 24, buttonLine: 23, buzzer: .passive,
            toneHertz: 2700, ledActiveLow: true, buzzerActiveLow: true, longPress: .acknowledge, snoozeAllHours: 12,
            backend: .gpio))
        #expect(config.warnings.isEmpty)
        let setup = try config.face.setup()
        #expect(setup.gpioLines?.chip == .init(label: nil, candidates: ["/dev/gpiochip0"]))
        #expect(setup.buzzerDrive == .passive(toneHertz: 2700))
    }

    @Test func anEmptySectionIsTheDefaults() throws {
        #expect(try parse("[face]\n").face == VigilConfiguration.Face())
        #expect(try parse("[face]\nchip = \"\"\ntone-hz = 0\nbuzzer = \"passive\"\n").face
            == VigilConfiguration.Face(buzzer: .passive))
    }

    @Test(arguments: ["pi-zero-2w", "pi-3b-plus", "pi-4b", "pi-5", "generic"])
    func everyBoardNameIsAccepted(name: String) throws {
        let text = "[face]\nboard = \"\(name)\"\n" + (name == "generic" ? "buzzer-line = 5\nled-line = 6\nbutton-line = 13\n" : "")
        #expect(try parse(text).face.board == name)
    }

    @Test func genericWithoutLinesStopsVigilAtTheBoardKey() {
        let text = "[face]\nboard = \"generic\"\nled-line = 6\n"
        let expected = ConfigurationError(.invalidValue(
            key: "board", section: "[face]",
            reason: "board \"generic\" has no default line for the buzzer and button: set buzzer-line and button-line in [face] (`gpioinfo` lists the lines), or choose a board profile"),
            at: at(2, 9))
        #expect(throws: ConfigurationErrors([expected])) { try parse(text) }
        #expect(expected.formatted(file: "vigil.conf").hasPrefix("vigil.conf:2:9: invalid \"board\" in [face]: board \"generic\""))
    }

    @Test(arguments: ["console", "none"])
    func genericNeedsNoLinesWithoutGPIO(backend: String) throws {
        let config = try parse("[face]\nbackend = \"\(backend)\"\nboard = \"generic\"\n")
        #expect(try config.face.setup().gpioLines == nil)
    }

    @Test func aLineOutsideTheSafeListIsAWarningNotAnError() throws {
        let config = try parse("[face]\nboard = \"pi-4b\"\nbuzzer-line = 2\nbutton-line = 26\n")
        #expect(config.face.buzzerLine == 2 && config.face.buttonLine == 26)
        #expect(config.warnings == [ConfigurationError(.invalidValue(
            key: "buzzer-line", section: "[face]",
            reason: "GPIO 2 is not one of board \"pi-4b\"'s safe lines (5, 6, 12, 13, 16, 17, 22, 23, 24, 25, 26, 27): it may belong to I2C, SPI, the UART or audio; used anyway"),
            at: at(3, 15))])
        #expect(try config.face.setup().gpioLines?.buzzer.offset == 2)
    }

    @Test func noSafetyWarningWithoutGPIOOrOnTheGenericBoard() throws {
        #expect(try parse("[face]\nbackend = \"console\"\nbuzzer-line = 2\n").warnings.isEmpty)
        #expect(try parse("[face]\nboard = \"generic\"\nbuzzer-line = 2\nled-line = 3\nbutton-line = 4\n").warnings.isEmpty)
    }

    @Test func aFaceKeyAtTheTopBelongsInFace() {
        #expect(throws: ConfigurationErrors([ConfigurationError(
            .unknownKey(key: "buzzer-line", section: "", hint: .belongsIn(section: "[face]")), at: at(1, 1))])) {
            try parse("buzzer-line = 5\n")
        }
    }

    typealias Problem = ConfigurationError.Problem

    static let rejected: [(String, Problem, Int, Int)] = [
        ("[face]\nbuzer-line = 5\n", .unknownKey(key: "buzer-line", section: "[face]", hint: .didYouMean("buzzer-line")), 2, 1),
        ("[face]\nboard = \"pi4b\"\n",
         .invalidValue(key: "board", section: "[face]",
                       reason: "\"pi4b\" is not one of generic, pi-3b-plus, pi-4b, pi-5, pi-zero-2w (did you mean \"pi-4b\"?)"), 2, 9),
        ("[face]\nboard = 4\n", .wrongType(key: "board", section: "[face]", expected: "a string (in quotes)", found: .integer), 2, 9),
        ("[face]\nbackend = \"gpi\"\n",
         .invalidValue(key: "backend", section: "[face]", reason: "\"gpi\" is not one of gpio, console, none (did you mean \"gpio\"?)"), 2, 11),
        ("[face]\nchip = \"gpio chip 0\"\n",
         .invalidValue(key: "chip", section: "[face]", reason: "\"gpio chip 0\" is not a chip name like \"gpiochip0\" (`gpiodetect` lists them)"), 2, 8),
        ("[face]\nbuzzer-line = 600\n",
         .invalidValue(key: "buzzer-line", section: "[face]", reason: "600 is out of range: it must be 0 to 511"), 2, 15),
        ("[face]\nled-line = \"27\"\n", .wrongType(key: "led-line", section: "[face]", expected: "a whole number", found: .string), 2, 12),
        ("[face]\nbutton-line = -1\n",
         .invalidValue(key: "button-line", section: "[face]", reason: "-1 is out of range: it must be 0 to 511"), 2, 15),
        // 17 is the board's buzzer line.
        ("[face]\nled-line = 17\n",
         .invalidValue(key: "led-line", section: "[face]", reason: "GPIO 17 cannot be both the buzzer and the led line"), 2, 12),
        ("[face]\nbuzzer-line = 5\nbutton-line = 5\n",
         .invalidValue(key: "button-line", section: "[face]", reason: "GPIO 5 cannot be both the buzzer and the button line"), 3, 15),
        ("[face]\nbuzzer = \"piezo\"\n",
         .invalidValue(key: "buzzer", section: "[face]", reason: "\"piezo\" is not one of active, passive"), 2, 10),
        ("[face]\ntone-hz = 2700\n",
         .invalidValue(key: "tone-hz", section: "[face]",
                       reason: "a tone only applies to buzzer = \"passive\" (an active buzzer makes its own); set tone-hz = 0 or buzzer = \"passive\""), 2, 11),
        ("[face]\nbuzzer = \"passive\"\ntone-hz = 50\n",
         .invalidValue(key: "tone-hz", section: "[face]", reason: "50 Hz is out of range: it must be 100 to 5000, or 0 for a tone per priority"), 3, 11),
        ("[face]\nbuzzer = \"passive\"\ntone-hz = 6000\n",
         .invalidValue(key: "tone-hz", section: "[face]", reason: "6000 Hz is out of range: it must be 100 to 5000, or 0 for a tone per priority"), 3, 11),
        ("[face]\ntone-hz = 2.7e3\n", .wrongType(key: "tone-hz", section: "[face]", expected: "a whole number", found: .float), 2, 11),
        ("[face]\nled-active-low = \"yes\"\n",
         .wrongType(key: "led-active-low", section: "[face]", expected: "a boolean (true or false)", found: .string), 2, 18),
        ("[face]\nbuzzer-active-low = 1\n",
         .wrongType(key: "buzzer-active-low", section: "[face]", expected: "a boolean (true or false)", found: .integer), 2, 21),
        ("[face]\nlong-press = \"snooze\"\n",
         .invalidValue(key: "long-press", section: "[face]", reason: "\"snooze\" is not one of snooze-all, acknowledge"), 2, 14),
        ("[face]\nlong-press = \"acknowlege\"\n",
         .invalidValue(key: "long-press", section: "[face]",
                       reason: "\"acknowlege\" is not one of snooze-all, acknowledge (did you mean \"acknowledge\"?)"), 2, 14),
        ("[face]\nsnooze-all-hours = 13\n",
         .invalidValue(key: "snooze-all-hours", section: "[face]", reason: "13 is out of range: it must be 1 to 12"), 2, 20),
        ("[face]\nsnooze-all-hours = 0\n",
         .invalidValue(key: "snooze-all-hours", section: "[face]", reason: "0 is out of range: it must be 1 to 12"), 2, 20),
        ("[[face]]\n", .wrongType(key: "face", section: "", expected: "a single table [face], not [[face]]", found: .array), 1, 3),
    ]

    @Test(arguments: rejected)
    func rejects(text: String, problem: Problem, line: Int, column: Int) {
        #expect(throws: ConfigurationErrors([ConfigurationError(problem, at: at(line, column))])) { try parse(text) }
    }
}
