import Bluetooth
import Testing
@testable import App

/// The schema: a good file read into every field, and each way a file can be wrong, with the
/// error at the line and column a person would edit.
@Suite struct VigilConfigurationParsingTests {
    static let knownTypes = ["heart-rate", "dexcom-g6", "miaomiao"]

    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: Self.knownTypes)
    }

    func errors(_ text: String) -> [ConfigurationError] {
        do {
            _ = try parse(text)
            return []
        } catch {
            return error.errors
        }
    }

    func at(_ line: Int, _ column: Int) -> TOML.Position { TOML.Position(line: line, column: column) }

    @Test func readsAGoodFileIntoEveryField() throws {
        let config = try parse("""
            [bluetooth]
            hci = "serial:/dev/ttyAMA0@3000000,rtscts"
            btsnoop-log = "/var/log/vigil/hci.btsnoop"
            scan = "active"
            static-address = "C4:5A:11:22:33:44"

            [storage]
            state-dir = "/srv/vigil"

            [log]
            level = "debug"

            [[device]]
            type = "heart-rate"
            name = "Polar"
            address = "C0:11:22:33:44:55"
            pair = true
            label = "Dad's chest strap"

            [[device]]
            type = "dexcom-g6"
            transmitter-id = "811234"
            backfill-minutes = 30
            """)
        #expect(config.bluetooth.transport == .serial(path: "/dev/ttyAMA0", baud: 3_000_000, flowControl: true))
        #expect(config.bluetooth.btsnoopLog == "/var/log/vigil/hci.btsnoop")
        #expect(config.bluetooth.scan == .active)
        #expect(config.bluetooth.staticAddress == Address(value: 0xC45A_1122_3344))
        #expect(config.storage.stateDirectory == "/srv/vigil")
        #expect(config.log.level == .debug)
        #expect(config.devices.count == 2)
        let strap = config.devices[0]
        #expect(strap.type == "heart-rate")
        #expect(strap.namePrefix == "Polar")
        #expect(strap.address == Address(value: 0xC011_2233_4455))
        #expect(strap.pair == true)
        #expect(strap.label == "Dad's chest strap")
        #expect(strap.options.isEmpty)
        #expect(strap.position == at(13, 1))
        let dexcom = config.devices[1]
        #expect(dexcom.type == "dexcom-g6")
        #expect(dexcom.namePrefix == nil && dexcom.address == nil && dexcom.pair == false && dexcom.label == nil)
        #expect(dexcom.position == at(20, 1))
        // Per-type keys are kept, with positions, for the transmitter type to validate.
        #expect(dexcom.options == [
            "transmitter-id": TOML.Value(.string("811234"), at: at(22, 18)),
            "backfill-minutes": TOML.Value(.integer(30), at: at(23, 20)),
        ])
        #expect(dexcom.optionKeyPositions == ["transmitter-id": at(22, 1), "backfill-minutes": at(23, 1)])
    }

    @Test(arguments: ["", "\n\n", "   \t\n", "# only a comment\n# and another\n", "[bluetooth]\n[storage]\n[log]\n"])
    func fileWithoutSettingsMeansAllDefaultsAndNoDevices(text: String) throws {
        #expect(try parse(text) == VigilConfiguration())
    }

    @Test func dottedKeysAndInlineDeviceTablesAreTheSameData() throws {
        let config = try parse("""
            bluetooth.hci = "hci1"
            log = { level = "error" }
            device = [{ type = "miaomiao", label = "Libre" }]
            """)
        #expect(config.bluetooth.transport == .userChannel(index: 1))
        #expect(config.log.level == .error)
        #expect(config.devices.map(\.label) == ["Libre"])
    }

    @Test func emptyStringsMeanNotSet() throws {
        let config = try parse("""
            [bluetooth]
            btsnoop-log = ""
            static-address = ""
            [[device]]
            type = "heart-rate"
            name = ""
            address = ""
            label = ""
            """)
        #expect(config.bluetooth.btsnoopLog == nil && config.bluetooth.staticAddress == nil)
        #expect(config.devices == [VigilConfiguration.Device(type: "heart-rate", position: at(4, 1))])
    }

    typealias Problem = ConfigurationError.Problem

    static let rejected: [(text: String, problem: Problem, line: Int, column: Int)] = [
        // Unknown keys and sections, with suggestions.
        ("[bluetooth]\nhco = \"hci0\"", .unknownKey(key: "hco", section: "[bluetooth]", hint: .didYouMean("hci")), 2, 1),
        ("[bluetooth]\n  btsnoop_log = \"\"", .unknownKey(key: "btsnoop_log", section: "[bluetooth]", hint: .didYouMean("btsnoop-log")), 2, 3),
        ("[storage]\nstatedir = \"/x\"", .unknownKey(key: "statedir", section: "[storage]", hint: .didYouMean("state-dir")), 2, 1),
        ("[log]\nverbose = true", .unknownKey(key: "verbose", section: "[log]", hint: nil), 2, 1),
        ("[bluetoth]\nhci = \"hci0\"", .unknownSection(name: "bluetoth", hint: .didYouMean("bluetooth")), 1, 2),
        ("[alarm]\nlow = 70", .unknownSection(name: "alarm", hint: .didYouMean("alarms")), 1, 2),
        ("[display]\nlow = 70", .unknownSection(name: "display", hint: nil), 1, 2),
        ("hci = \"hci0\"", .unknownKey(key: "hci", section: "", hint: .belongsIn(section: "[bluetooth]")), 1, 1),
        ("type = \"heart-rate\"", .unknownKey(key: "type", section: "", hint: .belongsIn(section: "[[device]]")), 1, 1),
        ("colour = \"red\"", .unknownKey(key: "colour", section: "", hint: nil), 1, 1),
        ("[[device]]\ntype = \"heart-rate\"\n    adress = \"C0:11:22:33:44:55\"",
         .unknownKey(key: "adress", section: "[[device]]", hint: .didYouMean("address")), 3, 5),
        ("[[device]]\ntype = \"heart-rate\"\nlable = \"x\"", .unknownKey(key: "lable", section: "[[device]]", hint: .didYouMean("label")), 3, 1),
        ("[[device]]\ntype = \"heart-rate\"\npairs = true", .unknownKey(key: "pairs", section: "[[device]]", hint: .didYouMean("pair")), 3, 1),
        // Sections of the wrong shape.
        ("bluetooth = 1", .wrongType(key: "bluetooth", section: "", expected: "a table: write [bluetooth] on its own line with the keys below it", found: .integer), 1, 1),
        ("[[log]]\nlevel = \"info\"", .wrongType(key: "log", section: "", expected: "a single table [log], not [[log]]", found: .array), 1, 3),
        ("[device]\ntype = \"heart-rate\"", .wrongType(key: "device", section: "", expected: "an array of tables: write [[device]] (double brackets), not [device]", found: .table), 1, 2),
        ("device = \"polar\"", .wrongType(key: "device", section: "", expected: "an array of tables: one [[device]] section per device", found: .string), 1, 1),
        ("device = [1]", .wrongType(key: "device", section: "", expected: "an array of tables: one [[device]] section per device", found: .array), 1, 1),
        // Wrong types name the expected type.
        ("[bluetooth]\nhci = 0", .wrongType(key: "hci", section: "[bluetooth]", expected: "a string (in quotes)", found: .integer), 2, 7),
        ("[bluetooth]\nscan = false", .wrongType(key: "scan", section: "[bluetooth]", expected: "a string (in quotes)", found: .boolean), 2, 8),
        ("[storage]\nstate-dir = [\"/a\"]", .wrongType(key: "state-dir", section: "[storage]", expected: "a string (in quotes)", found: .array), 2, 13),
        ("[log]\nlevel = 1.5", .wrongType(key: "level", section: "[log]", expected: "a string (in quotes)", found: .float), 2, 9),
        ("[[device]]\ntype = \"heart-rate\"\npair = \"yes\"", .wrongType(key: "pair", section: "[[device]]", expected: "a boolean (true or false)", found: .string), 3, 8),
        ("[[device]]\ntype = 7", .wrongType(key: "type", section: "[[device]]", expected: "a string (in quotes)", found: .integer), 2, 8),
        ("[[device]]\ntype = \"heart-rate\"\nname = { a = 1 }", .wrongType(key: "name", section: "[[device]]", expected: "a string (in quotes)", found: .table), 3, 8),
        // Missing required keys.
        ("[[device]]\nname = \"Polar\"", .missingKey(key: "type", section: "[[device]]"), 1, 1),
        ("[[device]]", .missingKey(key: "type", section: "[[device]]"), 1, 1),
        // Right type, wrong value.
        ("[bluetooth]\nscan = \"pasive\"", .invalidValue(key: "scan", section: "[bluetooth]", reason: "\"pasive\" is not one of passive, active, off (did you mean \"passive\"?)"), 2, 8),
        ("[log]\nlevel = \"verbose\"", .invalidValue(key: "level", section: "[log]", reason: "\"verbose\" is not one of debug, info, notice, warning, error"), 2, 9),
        ("[bluetooth]\nhci = \"tcp:localhost:70000\"", .invalidValue(key: "hci", section: "[bluetooth]", reason: "port 70000 is out of range 1-65535"), 2, 7),
        ("[bluetooth]\nhci = \"serial:/dev/ttyS0@12345\"", .invalidValue(key: "hci", section: "[bluetooth]", reason: VigilConfiguration.Transport.ParseError.unsupportedBaud("12345").description), 2, 7),
        ("[bluetooth]\nhci = \"serial:\"", .invalidValue(key: "hci", section: "[bluetooth]", reason: "serial: needs a path, e.g. serial:/dev/ttyAMA0"), 2, 7),
        ("[bluetooth]\nhci = \"\"", .invalidValue(key: "hci", section: "[bluetooth]", reason: VigilConfiguration.Transport.ParseError.empty.description), 2, 7),
        ("[bluetooth]\nbtsnoop-log = \"hci.btsnoop\"", .invalidValue(key: "btsnoop-log", section: "[bluetooth]", reason: "path \"hci.btsnoop\" must be absolute (start with /)"), 2, 15),
        ("[bluetooth]\nstatic-address = \"00:11:22:33:44:55\"", .invalidValue(key: "static-address", section: "[bluetooth]", reason: "00:11:22:33:44:55 is not a random static address (the first digit must be C, D, E or F)"), 2, 18),
        ("[bluetooth]\nstatic-address = \"FF:FF:FF:FF:FF:FF\"", .invalidValue(key: "static-address", section: "[bluetooth]", reason: "FF:FF:FF:FF:FF:FF is not usable: the bits after the first two must not be all 0 or all 1"), 2, 18),
        ("[bluetooth]\nstatic-address = \"C0:00:00:00:00:00\"", .invalidValue(key: "static-address", section: "[bluetooth]", reason: "C0:00:00:00:00:00 is not usable: the bits after the first two must not be all 0 or all 1"), 2, 18),
        ("[bluetooth]\nstatic-address = \"random\"", .invalidValue(key: "static-address", section: "[bluetooth]", reason: "\"random\" is not a Bluetooth address like \"C0:11:22:33:44:55\" (or \"\" to generate one)"), 2, 18),
        ("[storage]\nstate-dir = \"\"", .invalidValue(key: "state-dir", section: "[storage]", reason: "must not be empty"), 2, 13),
        ("[storage]\nstate-dir = \"var/lib/vigil\"", .invalidValue(key: "state-dir", section: "[storage]", reason: "path \"var/lib/vigil\" must be absolute (start with /)"), 2, 13),
        ("[[device]]\ntype = \"heart-rate\"\naddress = \"C0:11:22:33:44\"", .invalidValue(key: "address", section: "[[device]]", reason: "\"C0:11:22:33:44\" is not a Bluetooth address like \"C0:11:22:33:44:55\""), 3, 11),
        ("[[device]]\ntype = \"heart-rate\"\naddress = \"C0:11:22:33:44:55\"\n[[device]]\ntype = \"miaomiao\"\naddress = \"c0:11:22:33:44:55\"",
         .invalidValue(key: "address", section: "[[device]]", reason: "C0:11:22:33:44:55 is already used by the device on line 1"), 4, 1),
        // Device types come from the caller's registry.
        ("[[device]]\ntype = \"heartrate\"", .unknownDeviceType(name: "heartrate", known: knownTypes + FollowerSource.typeNames, hint: .didYouMean("heart-rate")), 2, 8),
        ("[[device]]\ntype = \"libre2\"", .unknownDeviceType(name: "libre2", known: knownTypes + FollowerSource.typeNames, hint: nil), 2, 8),
    ]

    @Test(arguments: rejected)
    func rejects(text: String, problem: Problem, line: Int, column: Int) {
        #expect(errors(text) == [ConfigurationError(problem, at: at(line, column))], "\(text.debugDescription)")
    }

    @Test func unknownDeviceTypeWhenTheRegistryIsEmpty() {
        let errors: [ConfigurationError]
        do {
            _ = try VigilConfiguration(parsing: "[[device]]\ntype = \"heart-rate\"", knownDeviceTypes: [])
            errors = []
        } catch {
            errors = error.errors
        }
        #expect(errors.map(\.message) == ["unknown device type \"heart-rate\"; known types: nightscout, dexcom-share, librelinkup"], "the followers are Vigil's own types")
    }

    @Test func reportsEverySchemaErrorInFileOrder() {
        let found = errors("""
            [[device]]
            type = "hr"
            [log]
            level = "loud"
            [bluetooth]
            hci = 3
            scna = "active"
            """)
        #expect(found.map(\.position) == [at(2, 8), at(4, 9), at(6, 7), at(7, 1)])
    }

    @Test func syntaxErrorsAloneWhenTheTOMLIsBroken() {
        // The unknown key on line 3 is not reported: the file was not fully read, so schema
        // complaints (such as a "missing" key on the broken line) could mislead.
        let found = errors("[bluetooth]\nhci = \"hci0\nfoo = 1\n")
        #expect(found == [ConfigurationError(.syntax(.unterminatedString, message: "unterminated string (no closing quote on this line)"), at: at(2, 7))])
    }

    @Test func aPerTypeKeyFarFromTheSharedKeysIsKeptNotRejected() throws {
        // "pin" is two edits from "pair": not treated as a typo of it (short keys allow one).
        let config = try parse("[[device]]\ntype = \"dexcom-g6\"\npin = \"1234\"\nmode = 2\n")
        #expect(config.devices.first?.options.keys.sorted() == ["mode", "pin"])
    }
}
