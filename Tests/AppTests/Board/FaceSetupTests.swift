import Testing
@testable import App

/// `[face]` + a board profile -> the resolved face a backend drives.
@Suite struct FaceSetupTests {
    typealias Face = VigilConfiguration.Face

    func board(_ name: String) throws -> BoardProfile { try #require(BoardProfile.builtIn(named: name)) }

    @Test func theDefaultFaceIsThePiZeroWiring() throws {
        let setup = try Face().setup()
        #expect(setup.backend == .gpio(FaceSetup.GPIOLines(
            board: "pi-zero-2w", chip: .init(label: "pinctrl-bcm2835", candidates: ["gpiochip0"]),
            buzzer: .init(offset: 17, activeLow: false), led: .init(offset: 27, activeLow: false), button: 22)))
        #expect(setup.buzzerDrive == .active)
        #expect(setup.longPress == .snoozeAll)
        #expect(setup.snoozeAllFor == .seconds(7200))
        #expect(setup.gpioLines?.button == 22)
    }

    @Test func thePi5KeepsBothChipNamesAndItsLabel() throws {
        let lines = try #require(try Face(board: "pi-5").setup().gpioLines)
        #expect(lines.chip == .init(label: "pinctrl-rp1", candidates: ["gpiochip0", "gpiochip4"]))
        #expect(lines.board == "pi-5")
    }

    @Test func overridesReplaceTheBoardsDefaults() throws {
        let face = Face(board: "pi-4b", chip: "gpiochip2", buzzerLine: 26, ledLine: 5, buttonLine: 6, buzzer: .passive,
                        toneHertz: 2700, ledActiveLow: true, buzzerActiveLow: true, longPress: .acknowledge, snoozeAllHours: 12)
        let setup = try face.setup()
        // A chip given by hand is taken at its word: no label check.
        #expect(setup.gpioLines == FaceSetup.GPIOLines(
            board: "pi-4b", chip: .init(label: nil, candidates: ["gpiochip2"]),
            buzzer: .init(offset: 26, activeLow: true), led: .init(offset: 5, activeLow: true), button: 6))
        #expect(setup.buzzerDrive == .passive(toneHertz: 2700))
        #expect(setup.longPress == .acknowledge)
        #expect(setup.snoozeAllFor == .seconds(12 * 3600))
    }

    @Test func oneOverrideKeepsTheOtherDefaults() throws {
        let lines = try #require(try Face(board: "pi-3b-plus", ledLine: 24).setup().gpioLines)
        #expect(lines.buzzer.offset == 17 && lines.led.offset == 24 && lines.button == 22)
    }

    @Test func passiveWithoutAToneUsesThePriorityTones() throws {
        #expect(try Face(buzzer: .passive).setup().buzzerDrive == .passive(toneHertz: nil))
    }

    @Test func genericWithoutLinesCannotDriveGPIO() throws {
        #expect(throws: FaceSetup.Problem.noLine(board: "generic", roles: [.buzzer, .led, .button])) {
            try Face(board: "generic").setup()
        }
        #expect(throws: FaceSetup.Problem.noLine(board: "generic", roles: [.led])) {
            try Face(board: "generic", buzzerLine: 5, buttonLine: 6).setup()
        }
    }

    @Test func genericWithLinesAndChip() throws {
        let lines = try #require(try Face(board: "generic", buzzerLine: 5, ledLine: 6, buttonLine: 7).setup().gpioLines)
        #expect(lines.chip == .init(label: nil, candidates: ["gpiochip0"]))
        #expect(lines.buzzer.offset == 5 && lines.led.offset == 6 && lines.button == 7)
    }

    @Test(arguments: [(Face.BackendName.console, FaceSetup.Backend.console), (.none, .none)])
    func consoleAndNoneNeedNoLines(name: Face.BackendName, backend: FaceSetup.Backend) throws {
        #expect(try Face(board: "generic", backend: name).setup().backend == backend)
        #expect(try Face(board: "generic", backend: name).setup().gpioLines == nil)
    }

    @Test func twoRolesOnOneLine() throws {
        #expect(throws: FaceSetup.Problem.sharedLine(offset: 17, first: .buzzer, second: .led)) {
            try Face(ledLine: 17).setup()
        }
        #expect(throws: FaceSetup.Problem.sharedLine(offset: 27, first: .led, second: .button)) {
            try Face(buttonLine: 27).setup()
        }
    }

    @Test func unknownBoard() throws {
        #expect(throws: FaceSetup.Problem.unknownBoard("pi-6")) { try Face(board: "pi-6").setup() }
    }

    @Test func problemMessagesSayWhatToDo() {
        #expect(FaceSetup.Problem.noLine(board: "generic", roles: [.buzzer, .button]).description
            == "board \"generic\" has no default line for the buzzer and button: set buzzer-line and button-line in [face] (`gpioinfo` lists the lines), or choose a board profile")
        #expect(FaceSetup.Problem.noLine(board: "generic", roles: [.buzzer, .led, .button]).description
            == "board \"generic\" has no default line for the buzzer, led and button: set buzzer-line, led-line and button-line in [face] (`gpioinfo` lists the lines), or choose a board profile")
        #expect(FaceSetup.Problem.noLine(board: "generic", roles: [.led]).description
            == "board \"generic\" has no default line for the led: set led-line in [face] (`gpioinfo` lists the lines), or choose a board profile")
        #expect(FaceSetup.Problem.sharedLine(offset: 17, first: .buzzer, second: .led).description
            == "GPIO 17 cannot be both the buzzer and the led line")
        #expect(FaceSetup.Problem.unknownBoard("x").description
            == "unknown board \"x\"; known boards: generic, pi-3b-plus, pi-4b, pi-5, pi-zero-2w")
        #expect(FaceSetup.Role.allCases.map(\.configurationKey) == ["buzzer-line", "led-line", "button-line"])
    }
}
