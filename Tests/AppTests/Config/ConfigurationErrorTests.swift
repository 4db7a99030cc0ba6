import Testing
@testable import App

/// The exact text a parent sees on the console or in the journal.
@Suite struct ConfigurationErrorTests {
    static let at = TOML.Position(line: 12, column: 5)

    static let messages: [(problem: ConfigurationError.Problem, message: String)] = [
        (.unknownKey(key: "adress", section: "[[device]]", hint: .didYouMean("address")),
         "unknown key \"adress\" in [[device]] (did you mean \"address\"?)"),
        (.unknownKey(key: "verbose", section: "[log]", hint: nil), "unknown key \"verbose\" in [log]"),
        (.unknownKey(key: "hci", section: "", hint: .belongsIn(section: "[bluetooth]")),
         "unknown key \"hci\" at the top of the file (it belongs in [bluetooth])"),
        (.unknownSection(name: "bluetoth", hint: .didYouMean("bluetooth")), "unknown section [bluetoth] (did you mean [bluetooth]?)"),
        (.unknownSection(name: "alarms", hint: nil), "unknown section [alarms]"),
        (.wrongType(key: "pair", section: "[[device]]", expected: "a boolean (true or false)", found: .string),
         "\"pair\" in [[device]] must be a boolean (true or false), found a string"),
        (.wrongType(key: "device", section: "", expected: "an array of tables", found: .integer),
         "\"device\" must be an array of tables, found an integer"),
        (.missingKey(key: "type", section: "[[device]]"), "missing required key \"type\" in [[device]]"),
        (.invalidValue(key: "hci", section: "[bluetooth]", reason: "port 70000 is out of range 1-65535"),
         "invalid \"hci\" in [bluetooth]: port 70000 is out of range 1-65535"),
        (.unknownDeviceType(name: "heartrate", known: ["heart-rate", "dexcom-g6"], hint: .didYouMean("heart-rate")),
         "unknown device type \"heartrate\" (did you mean \"heart-rate\"?); known types: heart-rate, dexcom-g6"),
        (.syntax(.unterminatedString, message: "unterminated string (no closing quote on this line)"),
         "unterminated string (no closing quote on this line)"),
    ]

    @Test(arguments: messages)
    func message(problem: ConfigurationError.Problem, message: String) {
        let error = ConfigurationError(problem, at: Self.at)
        #expect(error.message == message)
        #expect(error.description == "12:5: " + message)
        #expect(error.formatted(file: "vigil.conf") == "vigil.conf:12:5: " + message)
    }

    @Test func formatsTheExampleFromTheBriefEndToEnd() {
        // Eleven lines, then the typo indented by four spaces: line 12, column 5.
        let text = """
            [bluetooth]
            hci = "hci0"
            btsnoop-log = ""
            scan = "passive"
            static-address = ""
            [storage]
            state-dir = "/var/lib/vigil"
            [log]
            level = "info"
            [[device]]
            type = "heart-rate"
                adress = "C0:11:22:33:44:55"
            """
        do {
            _ = try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
            Issue.record("a misspelt key must not parse")
        } catch {
            #expect(error.formatted(file: "vigil.conf")
                == "vigil.conf:12:5: unknown key \"adress\" in [[device]] (did you mean \"address\"?)")
        }
    }

    @Test func oneLinePerErrorWithTheFileName() {
        let errors = ConfigurationErrors([
            ConfigurationError(.missingKey(key: "type", section: "[[device]]"), at: TOML.Position(line: 3, column: 1)),
            ConfigurationError(.unknownSection(name: "x", hint: nil), at: TOML.Position(line: 9, column: 2)),
        ])
        #expect(errors.formatted(file: "/etc/vigil/vigil.conf") == """
            /etc/vigil/vigil.conf:3:1: missing required key "type" in [[device]]
            /etc/vigil/vigil.conf:9:2: unknown section [x]
            """)
        #expect(errors.description == "3:1: missing required key \"type\" in [[device]]\n9:2: unknown section [x]")
    }

    @Test func syntaxErrorsKeepTheParsersPositionAndMessage() {
        do {
            _ = try VigilConfiguration(parsing: "[log]\nlevel = info\n", knownDeviceTypes: [])
            Issue.record("unquoted text must not parse")
        } catch {
            #expect(error.formatted(file: "vigil.conf")
                == "vigil.conf:2:9: expected a value (text must be in quotes, like \"info\"), found info")
        }
    }
}
