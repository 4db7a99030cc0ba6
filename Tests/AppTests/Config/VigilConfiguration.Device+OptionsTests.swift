import Testing
@testable import App

/// The helpers a transmitter type uses to validate its own `[[device]]` keys.
@Suite struct DeviceOptionsTests {
    func device(_ body: String) throws -> VigilConfiguration.Device {
        let config = try VigilConfiguration(parsing: "[[device]]\ntype = \"dexcom-g6\"\n" + body, knownDeviceTypes: ["dexcom-g6"])
        return try #require(config.devices.first)
    }

    func at(_ line: Int, _ column: Int) -> TOML.Position { TOML.Position(line: line, column: column) }

    @Test func readsEachKindOfOption() throws {
        let d = try device("""
            transmitter-id = "811234"
            backfill = true
            no-data-minutes = 20
            aliases = ["kitchen", 'bedroom']
            """)
        #expect(try d.stringOption("transmitter-id") == "811234")
        #expect(try d.booleanOption("backfill") == true)
        #expect(try d.integerOption("no-data-minutes", in: 5...60) == 20)
        #expect(try d.stringArrayOption("aliases") == ["kitchen", "bedroom"])
        #expect(try d.stringOption("absent") == nil)
        #expect(try d.booleanOption("absent") == nil)
        #expect(try d.integerOption("absent", in: 0...1) == nil)
        #expect(try d.stringArrayOption("absent") == nil)
        #expect(d.unknownOptionErrors(known: ["transmitter-id", "backfill", "no-data-minutes", "aliases"]).isEmpty)
    }

    @Test func wrongTypesNameTheExpectedType() throws {
        let d = try device("""
            transmitter-id = 8
            backfill = "yes"
            no-data-minutes = 20.5
            aliases = "kitchen"
            """)
        #expect(throws: ConfigurationError(.wrongType(key: "transmitter-id", section: "[[device]]", expected: "a string (in quotes)", found: .integer), at: at(3, 18))) {
            try d.stringOption("transmitter-id")
        }
        #expect(throws: ConfigurationError(.wrongType(key: "backfill", section: "[[device]]", expected: "a boolean (true or false)", found: .string), at: at(4, 12))) {
            try d.booleanOption("backfill")
        }
        #expect(throws: ConfigurationError(.wrongType(key: "no-data-minutes", section: "[[device]]", expected: "an integer", found: .float), at: at(5, 19))) {
            try d.integerOption("no-data-minutes", in: 1...60)
        }
        #expect(throws: ConfigurationError(.wrongType(key: "aliases", section: "[[device]]", expected: "an array of strings", found: .string), at: at(6, 11))) {
            try d.stringArrayOption("aliases")
        }
    }

    @Test func mixedArrayIsRejectedAtTheOddElement() throws {
        let d = try device("aliases = [\n  \"kitchen\",\n  2,\n]\n")
        let error = ConfigurationError(
            .wrongType(key: "aliases", section: "[[device]]", expected: "an array of strings (every element in quotes)", found: .integer),
            at: at(5, 3))
        #expect(throws: error) { try d.stringArrayOption("aliases") }
        #expect(error.message == "\"aliases\" in [[device]] must be an array of strings (every element in quotes), found an integer")
    }

    @Test(arguments: [(Int64(4), false), (5, true), (60, true), (61, false), (-1, false)])
    func integerRange(minutes: Int64, accepted: Bool) throws {
        let d = try device("no-data-minutes = \(minutes)\n")
        if accepted {
            #expect(try d.integerOption("no-data-minutes", in: 5...60) == minutes)
        } else {
            #expect(throws: ConfigurationError(.invalidValue(key: "no-data-minutes", section: "[[device]]", reason: "\(minutes) is out of range 5-60"), at: at(3, 19))) {
                try d.integerOption("no-data-minutes", in: 5...60)
            }
        }
    }

    @Test func unknownOptionsAreReportedAtTheKeyWithSuggestions() throws {
        let d = try device("transmiter-id = \"811234\"\n  colour = \"red\"\n")
        #expect(d.unknownOptionErrors(known: ["transmitter-id"]) == [
            ConfigurationError(.unknownKey(key: "transmiter-id", section: "[[device]]", hint: .didYouMean("transmitter-id")), at: at(3, 1)),
            ConfigurationError(.unknownKey(key: "colour", section: "[[device]]", hint: nil), at: at(4, 3)),
        ])
    }
}
