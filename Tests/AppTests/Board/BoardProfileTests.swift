import Foundation
import Testing
@testable import App

/// The board files in `board/`: each parses, the compiled-in copies are the files, and the pin
/// facts agree with the Raspberry Pi 40-pin header.
@Suite struct BoardProfileTests {
    /// Tests/AppTests/Board/<this file> -> the repository's board/ folder.
    static let boardDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("board")

    static func files() throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: boardDirectory.path).filter { $0.hasSuffix(".toml") }
        var texts: [String: String] = [:]
        for name in names {
            texts[String(name.dropLast(".toml".count))] =
                try String(contentsOf: boardDirectory.appendingPathComponent(name), encoding: .utf8)
        }
        return texts
    }

    /// The 40-pin header, BCM GPIO -> physical pin, identical on the Pi Zero 2 W, 3B+, 4B and 5
    /// (Raspberry Pi documentation "GPIO and the 40-pin header"; pinout.xyz). Written out here
    /// independently of the board files so the test checks them, not itself.
    static let headerPin: [Int: Int] = [
        0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33,
        14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22,
        26: 37, 27: 13,
    ]
    /// Lines the brief excludes: I2C0 ID EEPROM (0, 1), I2C1 (2, 3), 1-wire default (4),
    /// SPI0 (7-11), UART0 (14, 15), PCM/I2S (18-21).
    static let reserved: Set<Int> = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 14, 15, 18, 19, 20, 21]
    static let piBoards = ["pi-zero-2w", "pi-3b-plus", "pi-4b", "pi-5"]

    @Test func theFolderHoldsExactlyTheFiveBoards() throws {
        #expect(Set(try Self.files().keys) == Set(Self.piBoards + ["generic"]))
    }

    @Test func everyFileParsesAndIsNamedAfterItsFile() throws {
        for (file, text) in try Self.files() {
            let profile = try BoardProfile(parsing: text)
            #expect(profile.name == file)
            #expect(!profile.model.isEmpty && profile.model != profile.name)
        }
    }

    @Test func compiledCopiesAreTheFiles() throws {
        // One source of truth: board/*.toml. If this fails, run board/embed.sh.
        let compiled = Dictionary(uniqueKeysWithValues: BoardProfile.builtInSources.map { ($0.name, $0.text) })
        let files = try Self.files()
        #expect(Set(compiled.keys) == Set(files.keys))
        for (name, text) in files {
            #expect(compiled[name] == text, "board/\(name).toml differs from its compiled copy: run board/embed.sh")
        }
        #expect(Set(BoardProfile.builtInNames) == Set(files.keys))
        for name in files.keys {
            #expect(try BoardProfile.builtIn(named: name) == BoardProfile(parsing: files[name]!))
        }
        #expect(BoardProfile.builtIn(named: "pi-6") == nil)
    }

    @Test(arguments: piBoards)
    func piDefaultLinesAreTheSameSafePinsWithTheirHeaderPins(name: String) throws {
        let profile = try #require(BoardProfile.builtIn(named: name))
        #expect(profile.buzzer == BoardProfile.Line(offset: 17, headerPin: 11))
        #expect(profile.led == BoardProfile.Line(offset: 27, headerPin: 13))
        #expect(profile.button == BoardProfile.Line(offset: 22, headerPin: 15))
        for line in [profile.buzzer, profile.led, profile.button].compactMap({ $0 }) {
            #expect(Self.headerPin[line.offset] == line.headerPin)
            #expect(profile.safeLines.contains(line.offset))
        }
        #expect(profile.safeLines == [5, 6, 12, 13, 16, 17, 22, 23, 24, 25, 26, 27])
        #expect(Set(profile.safeLines).isDisjoint(with: Self.reserved))
        // Every header GPIO is either reserved or safe: nothing forgotten.
        #expect(Set(profile.safeLines).union(Self.reserved) == Set(Self.headerPin.keys))
    }

    @Test func chipsByBoard() throws {
        func chip(_ name: String) throws -> BoardProfile.ChipSelector { try #require(BoardProfile.builtIn(named: name)).chip }
        #expect(try chip("pi-zero-2w") == .init(label: "pinctrl-bcm2835", candidates: ["gpiochip0"]))
        #expect(try chip("pi-3b-plus") == .init(label: "pinctrl-bcm2835", candidates: ["gpiochip0"]))
        #expect(try chip("pi-4b") == .init(label: "pinctrl-bcm2711", candidates: ["gpiochip0"]))
        // The Pi 5: gpiochip0 from kernel 6.6.45 on, gpiochip4 before (raspberrypi/linux #6144).
        #expect(try chip("pi-5") == .init(label: "pinctrl-rp1", candidates: ["gpiochip0", "gpiochip4"]))
        #expect(try chip("generic") == .init(label: nil, candidates: ["gpiochip0"]))
    }

    @Test func genericHasNoLinesAndNoSafeList() throws {
        let generic = try #require(BoardProfile.builtIn(named: "generic"))
        #expect(generic.buzzer == nil && generic.led == nil && generic.button == nil)
        #expect(generic.safeLines.isEmpty)
        #expect(!generic.isOutsideSafeLines(2))
        let pi = try #require(BoardProfile.builtIn(named: "pi-4b"))
        #expect(pi.isOutsideSafeLines(2) && !pi.isOutsideSafeLines(26))
    }

    @Test func readsEveryField() throws {
        // Hand-written: a board with every key, in the files' layout.
        let profile = try BoardProfile(parsing: """
            name = "test-board"
            model = "Test Board rev 2"
            chip-label = "test-pinctrl"
            chip-names = ["gpiochip3", "/dev/gpiochip7"]
            buzzer = { line = 40, pin = 2 }
            led = { line = 41 }
            button = { line = 0, pin = 40 }
            safe-lines = [40, 41, 0, 511]
            """)
        #expect(profile.name == "test-board")
        #expect(profile.model == "Test Board rev 2")
        #expect(profile.chip == .init(label: "test-pinctrl", candidates: ["gpiochip3", "/dev/gpiochip7"]))
        #expect(profile.buzzer == .init(offset: 40, headerPin: 2))
        #expect(profile.led == .init(offset: 41, headerPin: nil))
        #expect(profile.button == .init(offset: 0, headerPin: 40))
        #expect(profile.safeLines == [40, 41, 0, 511])
    }

    @Test func modelDefaultsToTheNameAndLinesAreOptional() throws {
        let profile = try BoardProfile(parsing: "name = \"bare\"\nchip-names = [\"gpiochip0\"]\n")
        #expect(profile == BoardProfile(name: "bare", model: "bare", chip: .init(label: nil, candidates: ["gpiochip0"])))
    }

    @Test func descriptions() {
        #expect(BoardProfile.Line(offset: 17, headerPin: 11).description == "GPIO 17 (pin 11)")
        #expect(BoardProfile.Line(offset: 3).description == "GPIO 3")
        #expect(BoardProfile.ChipSelector(label: "pinctrl-rp1", candidates: ["gpiochip0", "gpiochip4"]).description
            == "the chip labelled \"pinctrl-rp1\" (gpiochip0 or gpiochip4)")
        #expect(BoardProfile.ChipSelector(label: nil, candidates: ["gpiochip0"]).description == "gpiochip0")
    }

    typealias Problem = ConfigurationError.Problem
    static let file = BoardProfile.fileSection
    static let head = "name = \"b\"\nchip-names = [\"gpiochip0\"]\n"

    static let rejected: [(String, Problem, Int, Int)] = [
        ("chip-names = [\"gpiochip0\"]\n", .missingKey(key: "name", section: file), 1, 1),
        ("name = \"Pi 4\"\nchip-names = [\"gpiochip0\"]\n",
         .invalidValue(key: "name", section: file, reason: "\"Pi 4\" must be lowercase letters, digits and hyphens, like \"pi-4b\""), 1, 8),
        ("name = 4\nchip-names = [\"gpiochip0\"]\n", .wrongType(key: "name", section: file, expected: "a string (in quotes)", found: .integer), 1, 8),
        ("name = \"b\"\n", .missingKey(key: "chip-names", section: file), 1, 1),
        ("name = \"b\"\nchip-names = []\n",
         .wrongType(key: "chip-names", section: file, expected: "a non-empty array of chip names, like [\"gpiochip0\"]", found: .array), 2, 14),
        ("name = \"b\"\nchip-names = \"gpiochip0\"\n",
         .wrongType(key: "chip-names", section: file, expected: "a non-empty array of chip names, like [\"gpiochip0\"]", found: .string), 2, 14),
        ("name = \"b\"\nchip-names = [0]\n",
         .wrongType(key: "chip-names", section: file, expected: "a non-empty array of chip names, like [\"gpiochip0\"]", found: .array), 2, 14),
        (head + "chip-label = \"\"\n",
         .invalidValue(key: "chip-label", section: file, reason: "must not be empty (leave the key out for no label)"), 3, 14),
        (head + "safe-line = [5]\n", .unknownKey(key: "safe-line", section: file, hint: .didYouMean("safe-lines")), 3, 1),
        (head + "buzzer = 17\n", .wrongType(key: "buzzer", section: file, expected: "a table like { line = 17, pin = 11 }", found: .integer), 3, 10),
        (head + "buzzer = { pin = 11 }\n", .missingKey(key: "line", section: "buzzer"), 3, 10),
        (head + "led = { line = 512 }\n", .invalidValue(key: "line", section: "led", reason: "512 is out of range 0...511"), 3, 16),
        (head + "led = { line = -1 }\n", .invalidValue(key: "line", section: "led", reason: "-1 is out of range 0...511"), 3, 16),
        (head + "led = { line = \"27\" }\n", .wrongType(key: "line", section: "led", expected: "a whole number", found: .string), 3, 16),
        (head + "button = { line = 22, pin = 41 }\n", .invalidValue(key: "pin", section: "button", reason: "41 is out of range 1...40"), 3, 29),
        (head + "button = { line = 22, pn = 15 }\n", .unknownKey(key: "pn", section: "button", hint: .didYouMean("pin")), 3, 23),
        (head + "safe-lines = [5, 6, 5]\n", .invalidValue(key: "safe-lines", section: file, reason: "GPIO 5 is listed twice"), 3, 21),
        (head + "safe-lines = 5\n", .wrongType(key: "safe-lines", section: file, expected: "an array of line numbers", found: .integer), 3, 14),
        (head + "buzzer = { line = 17 }\nled = { line = 17 }\n",
         .invalidValue(key: "led", section: file, reason: "GPIO 17 is already the buzzer line"), 4, 7),
        (head + "buzzer = { line = 2 }\nsafe-lines = [5]\n",
         .invalidValue(key: "buzzer", section: file, reason: "GPIO 2 is not in this board's safe-lines"), 3, 10),
    ]

    @Test(arguments: rejected)
    func rejects(text: String, problem: Problem, line: Int, column: Int) {
        #expect(throws: ConfigurationErrors([ConfigurationError(problem, at: TOML.Position(line: line, column: column))])) {
            try BoardProfile(parsing: text)
        }
    }

    @Test func syntaxErrorsComeThroughLineNumbered() throws {
        let error = try #require(throws: ConfigurationErrors.self) { try BoardProfile(parsing: "name = \"b\nchip-names = []\n") }
        #expect(error.errors.count == 1)
        #expect(error.errors.first?.position.line == 1)
        guard case .syntax = error.errors.first?.problem else {
            Issue.record("expected a syntax error, got \(error)")
            return
        }
    }

    @Test func everyErrorIsReportedInFileOrder() throws {
        let error = try #require(throws: ConfigurationErrors.self) {
            try BoardProfile(parsing: "nam = \"b\"\nchip-names = []\nled = { line = 999 }\n")
        }
        #expect(error.errors.map(\.position.line) == [1, 1, 2, 3])
        #expect(error.formatted(file: "b.toml").hasPrefix("b.toml:1:1: "))
    }
}
